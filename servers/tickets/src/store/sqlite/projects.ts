import { recordChanges } from '@shipyard/db';
import { eq } from 'drizzle-orm';
import {
  changedFields,
  checkNameTaken,
  type Project,
  projectChanges,
  projectExists,
  toProject,
} from '../../domain/projects.js';
import { getProjectRow, projectsNamed, type TicketsDb, type Tx } from './model.js';
import { projects } from './schema.js';

/** Refuse a name another project has (compared as projectsNamed compares), naming it. */
function checkNameFree(tx: Tx, name: string, self?: string) {
  checkNameTaken(projectsNamed(tx, name).filter((project) => project.key !== self));
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
      if (existing) throw projectExists(input.key, existing.name);
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
      const set = projectChanges(row, input);
      if (set.name !== undefined) checkNameFree(tx, set.name, row.key);
      const fields = changedFields(set);
      if (fields.length === 0) return { project: toProject(row), fields, changed: [] };
      const updated = tx.update(projects).set(set).where(eq(projects.id, row.id)).returning().get();
      const changed = ['tickets://projects', `tickets://projects/${row.key}`];
      recordChanges(db, changed);
      return { project: toProject(updated), fields, changed };
    },
    { behavior: 'immediate' },
  );
}
