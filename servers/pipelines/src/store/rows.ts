/** Row mapping shared by both engines. */
import type { Job } from '../domain/model.js';

export type Row = Record<string, unknown>;

/** The columns of a Run, as named in SQL (the same on both engines). */
export const RUN_COLUMNS = `id, repo, workflow_id, workflow, run_number, branch, commit_sha AS "commit", event, status,
  conclusion, attempt, created_at, started_at, finished_at, url`;

export const toJob = (row: Row): Job => ({
  id: row.id as number,
  run_id: row.run_id as number,
  name: row.name as string,
  status: row.status as string,
  conclusion: (row.conclusion as string | null) ?? null,
  attempt: row.attempt as number,
  created_at: (row.created_at as string | null) ?? null,
  started_at: (row.started_at as string | null) ?? null,
  completed_at: (row.completed_at as string | null) ?? null,
  steps: JSON.parse(row.steps as string),
});

/** Escape LIKE wildcards (backslash escapes), for prefix matches. */
export const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`;

/** Escape LIKE wildcards, for a match of the end of a path (ci.yml of .github/workflows/ci.yml). */
export const likeFileName = (name: string) => `%/${name.replace(/[\\%_]/g, '\\$&')}`;
