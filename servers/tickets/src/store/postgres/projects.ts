/** Projects: create, update, list, keys, completion. */

import { OPEN_STATUSES } from '../../domain/model.js';
import type { ProjectCounts } from '../../domain/pages.js';
import {
  changedFields,
  checkNameTaken,
  projectChanges,
  projectExists,
  toProject,
} from '../../domain/projects.js';
import { LIMITS } from '../../domain/reports.js';
import type { ProjectList, TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { getProjectRow, PROJECT_COLUMNS, type ProjectRow, projectsNamed, type Query } from './shared.js';

export type ProjectsPart = Pick<
  TicketsStore,
  'createProject' | 'updateProject' | 'listProjects' | 'projectKeys' | 'getProject' | 'completeProjects'
>;

/**
 * Every write that decides on project names holds this transaction-scoped lock first, so two of them
 * cannot both find a name free (as SQLite's IMMEDIATE transactions cannot). Nothing else takes it.
 */
const lockNames = (tx: Query) =>
  tx.query(`SELECT pg_advisory_xact_lock(hashtext('shipyard.tickets.project-names'))`);

/** Refuse a name another project has (compared as projectsNamed compares), naming it. */
async function checkNameFree(tx: Query, name: string, self?: string): Promise<void> {
  checkNameTaken((await projectsNamed(tx, name)).filter((project) => project.key !== self));
}

const countOf = async (q: Query, sql: string, values: unknown[] = []) =>
  (await q.query<{ n: number }>(sql, values)).rows[0]?.n ?? 0;

export function projectsPart(access: PgAccess): ProjectsPart {
  return {
    createProject: (input) =>
      access.write(async (tx) => {
        await lockNames(tx);
        const existing = (
          await tx.query<{ name: string }>('SELECT name FROM projects WHERE key = $1', [input.key])
        ).rows[0];
        if (existing) throw projectExists(input.key, existing.name);
        await checkNameFree(tx, input.name);
        const row = (
          await tx.query<ProjectRow>(
            `INSERT INTO projects AS p (key, name, description, created_at) VALUES ($1, $2, $3, $4)
             RETURNING ${PROJECT_COLUMNS}`,
            [input.key, input.name, input.description ?? '', new Date().toISOString()],
          )
        ).rows[0] as ProjectRow;
        return {
          project: toProject(row),
          changed: ['tickets://projects', `tickets://projects/${row.key}`],
        };
      }),

    updateProject: (input) =>
      access.write(async (tx) => {
        // The names lock before the row's, as createProject takes it: no two writes wait on each other.
        if (input.name !== undefined) await lockNames(tx);
        const row = await getProjectRow(tx, input.key, true);
        const set = projectChanges(row, input);
        if (set.name !== undefined) await checkNameFree(tx, set.name, row.key);
        const fields = changedFields(set);
        if (fields.length === 0) return { project: toProject(row), fields, changed: [] };
        const updated = (
          await tx.query<ProjectRow>(
            `UPDATE projects AS p SET
               name = CASE WHEN $2 THEN $3 ELSE name END,
               description = CASE WHEN $4 THEN $5 ELSE description END,
               archived_at = CASE WHEN $6 THEN $7 ELSE archived_at END
             WHERE p.id = $1 RETURNING ${PROJECT_COLUMNS}`,
            [
              row.id,
              set.name !== undefined,
              set.name ?? null,
              set.description !== undefined,
              set.description ?? null,
              set.archivedAt !== undefined,
              set.archivedAt ?? null,
            ],
          )
        ).rows[0] as ProjectRow;
        const changed = ['tickets://projects', `tickets://projects/${row.key}`];
        return { project: toProject(updated), fields, changed };
      }),

    listProjects: (options) =>
      access.read(async (q): Promise<ProjectList> => {
        const { includeArchived = false, limit } = options;
        // PostgreSQL text holds no NUL. No key holds one either, so the keys after text with a NUL are
        // those after the text before it.
        const after = options.after?.split('\0')[0];
        const listed = includeArchived ? 'true' : 'p.archived_at IS NULL';
        const total = await countOf(q, `SELECT count(*)::int AS n FROM projects p WHERE ${listed}`);
        // One more than shown, to know whether any follow.
        const { rows } = await q.query<ProjectCounts>(
          `SELECT p.key, p.name, p.description, p.archived_at IS NOT NULL AS archived,
             coalesce(c.open, 0)::int AS open, coalesce(c.total, 0)::int AS total
           FROM projects p
           LEFT JOIN (SELECT project_id, count(*) AS total,
               count(*) FILTER (WHERE status = ANY($3::text[])) AS open
             FROM tickets GROUP BY project_id) c ON c.project_id = p.id
           WHERE ${listed} AND ($1::text IS NULL OR p.key COLLATE "C" > $1::text)
           ORDER BY p.key COLLATE "C" LIMIT $2`,
          [after ?? null, limit + 1, [...OPEN_STATUSES]],
        );
        const more = rows.length > limit;
        if (more) rows.pop();
        const archived = includeArchived
          ? 0
          : await countOf(q, 'SELECT count(*)::int AS n FROM projects WHERE archived_at IS NOT NULL');
        return { projects: rows, total, more, archived };
      }),

    projectKeys: (limit) =>
      access.read(async (q) =>
        (
          await q.query<{ key: string }>('SELECT key FROM projects ORDER BY key COLLATE "C" LIMIT $1', [
            limit,
          ])
        ).rows.map((row) => row.key),
      ),

    getProject: (key) => access.read(async (q) => toProject(await getProjectRow(q, key))),

    completeProjects: (typed) =>
      access.read(async (q) => {
        const prefix = typed.trim().toUpperCase();
        if (!/^[A-Z0-9]*$/.test(prefix)) return [];
        // The prefix is letters and digits only, so LIKE reads nothing in it as a wildcard.
        const values = (
          await q.query<{ key: string }>(
            'SELECT key FROM projects WHERE key LIKE $1 ORDER BY key COLLATE "C" LIMIT $2',
            [`${prefix}%`, LIMITS.completions],
          )
        ).rows.map((row) => row.key);
        const total =
          values.length < LIMITS.completions
            ? values.length
            : await countOf(q, 'SELECT count(*)::int AS n FROM projects WHERE key LIKE $1', [`${prefix}%`]);
        return { values, total };
      }),
  };
}
