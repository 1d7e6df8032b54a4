import { Conflict, quoteText } from '@shipyard/core';
import { eq } from 'drizzle-orm';
import { projects } from '../db/schema.js';
import { listOf, type ProjectRow, projectsNamed, type TicketsDb } from './model.js';

export interface Project {
  key: string;
  name: string;
  description: string;
  created_at: string;
}

const toProject = (row: ProjectRow): Project => ({
  key: row.key,
  name: row.name,
  description: row.description,
  created_at: row.createdAt,
});

/**
 * Create a project. `changed` holds the project list and the project's page (a client may have subscribed
 * to that page before the project existed).
 */
export function createProject(
  db: TicketsDb,
  input: { key: string; name: string; description?: string | undefined },
): { project: Project; changed: string[] } {
  return db.transaction(
    (tx) => {
      const existing = tx
        .select({ name: projects.name })
        .from(projects)
        .where(eq(projects.key, input.key))
        .get();
      if (existing) {
        throw new Conflict(`Project ${input.key} already exists (${quoteText(existing.name)})`, {
          hint: 'Use that project, or choose another key',
        });
      }
      // One name a project: a name then tells a key (see projectNotFound), and no team splits in two.
      const twins = projectsNamed(tx, input.name);
      const keys = twins.map((project) => project.key);
      const [first] = twins;
      if (first) {
        throw new Conflict(
          keys.length > 1
            ? `Projects ${listOf(keys)} already have the name ${quoteText(first.name)}`
            : `Project ${first.key} already has the name ${quoteText(first.name)}`,
          { hint: `Use ${listOf(keys, 'or')}, or choose another name` },
        );
      }
      const row = tx
        .insert(projects)
        .values({
          key: input.key,
          name: input.name,
          description: input.description ?? '',
          createdAt: new Date().toISOString(),
        })
        .returning()
        .get();
      return {
        project: toProject(row),
        changed: ['tickets://projects', `tickets://projects/${row.key}`],
      };
    },
    { behavior: 'immediate' },
  );
}
