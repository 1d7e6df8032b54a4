import { Conflict, quoteText } from '@shipyard/core';
import { eq } from 'drizzle-orm';
import { projects } from '../db/schema.js';
import { type ProjectRow, projectsNamed, type TicketsDb } from './model.js';

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

export function createProject(
  db: TicketsDb,
  input: { key: string; name: string; description?: string | undefined },
) {
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
      const [named] = projectsNamed(tx, input.name);
      if (named) {
        throw new Conflict(`Project ${named.key} already has the name ${quoteText(named.name)}`, {
          hint: `Use ${named.key}, or choose another name`,
        });
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
      return toProject(row);
    },
    { behavior: 'immediate' },
  );
}
