import { Conflict, quoteText } from '@shipyard/core';
import { recordChanges } from '@shipyard/db';
import { eq } from 'drizzle-orm';
import type { Project } from '../../domain/projects.js';
import {
  getProjectRow,
  listOf,
  nowIso,
  type ProjectRow,
  projectsNamed,
  type TicketsDb,
  type Tx,
} from './model.js';
import { projects } from './schema.js';

export const toProject = (row: ProjectRow): Project => ({
  key: row.key,
  name: row.name,
  description: row.description,
  archived: row.archivedAt !== null,
  created_at: row.createdAt,
});

/** Refuse a name another project has (compared as projectsNamed compares), naming it. */
function checkNameFree(tx: Tx, name: string, self?: string) {
  // One name a project: a name then tells a key (see projectNotFound), and no team splits in two.
  const twins = projectsNamed(tx, name).filter((project) => project.key !== self);
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
}

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
      checkNameFree(tx, input.name);
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

/**
 * Change a project's name or description, or archive it (or bring it back). Only what differs is written;
 * `fields` names it. Archiving takes the project and its tickets out of lists and searches that do not ask
 * for archived ones; its tickets stay as they are. Other processes hear of it through the change log.
 */
export function updateProject(
  db: TicketsDb,
  input: {
    key: string;
    name?: string | undefined;
    description?: string | undefined;
    archived?: boolean | undefined;
  },
): { project: Project; fields: string[]; changed: string[] } {
  return db.transaction(
    (tx) => {
      const row = getProjectRow(tx, input.key);
      const set: Partial<typeof projects.$inferInsert> = {};
      if (input.name !== undefined && input.name !== row.name) {
        checkNameFree(tx, input.name, row.key);
        set.name = input.name;
      }
      if (input.description !== undefined && input.description !== row.description)
        set.description = input.description;
      if (input.archived !== undefined && input.archived !== (row.archivedAt !== null))
        set.archivedAt = input.archived ? nowIso() : null;
      const fields = Object.keys(set).map((field) => (field === 'archivedAt' ? 'archived' : field));
      if (fields.length === 0) return { project: toProject(row), fields, changed: [] };
      const updated = tx.update(projects).set(set).where(eq(projects.id, row.id)).returning().get();
      const changed = ['tickets://projects', `tickets://projects/${row.key}`];
      recordChanges(db, changed);
      return { project: toProject(updated), fields, changed };
    },
    { behavior: 'immediate' },
  );
}
