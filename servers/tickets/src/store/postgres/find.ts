/**
 * Reads the search and report parts share on PostgreSQL: drizzle SQL run on one connection, and a project or
 * ticket by the key a caller gave, refused with the domain's errors as on SQLite.
 */
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import {
  argumentError,
  looseKeys,
  NUMBERED_SHOWN,
  normaliseKey,
  noSuchTicket,
  notAKey,
  numberOnly,
  projectNameKey,
  projectNotFound,
} from '../../domain/keys.js';
import { PROJECT_KEY, projectOfKey, TICKET_KEY } from '../../domain/model.js';
import type { Query } from './access.js';

const dialect = new PgDialect();

/** The rows of a statement written with drizzle's `sql` (every value a `$n` parameter). */
export async function rowsOf<T>(q: Query, statement: SQL): Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return (await q.query(text, params)).rows as T[];
}

/** The first row of a statement, or undefined. */
export const rowOf = async <T>(q: Query, statement: SQL): Promise<T | undefined> =>
  (await rowsOf<T>(q, statement))[0];

/** Bound values as the list of an `IN (…)`, each once. */
export const sqlList = (values: readonly (string | number)[]) =>
  sql.join(
    [...new Set(values)].map((value) => sql`${value}`),
    sql`, `,
  );

export interface ProjectRow {
  id: number;
  key: string;
  name: string;
  description: string;
  lastNumber: number;
  createdAt: string;
  archivedAt: string | null;
}

const PROJECT_COLUMNS = sql.raw(
  'id, key, name, description, last_number AS "lastNumber", created_at AS "createdAt", archived_at AS "archivedAt"',
);

const findProject = (q: Query, key: string) =>
  rowOf<ProjectRow>(q, sql`SELECT ${PROJECT_COLUMNS} FROM projects WHERE key = ${key}`);

/** The project a key names (any case, padded); the domain's error naming what it may have meant otherwise. */
export async function projectByKey(q: Query, given: string): Promise<ProjectRow> {
  const key = normaliseKey(given);
  const row = PROJECT_KEY.test(key) ? await findProject(q, key) : undefined;
  if (row) return row;
  const text = given.trim();
  const wanted = projectNameKey(text);
  const named =
    TICKET_KEY.test(text.toUpperCase()) || !wanted
      ? []
      : (
          await rowsOf<{ key: string; name: string }>(
            q,
            sql`SELECT key, name FROM projects ORDER BY key COLLATE "C"`,
          )
        ).filter((project) => projectNameKey(project.name) === wanted);
  throw projectNotFound(given, named);
}

/** The id of the ticket a key names; the domain's errors (naming the argument `name`) otherwise. */
export async function ticketIdArgument(q: Query, name: string, given: string, noneHint?: string) {
  try {
    const key = normaliseKey(given);
    if (!TICKET_KEY.test(key)) throw await notATicketKey(q, given, key);
    const row = await rowOf<{ id: number }>(q, sql`SELECT id FROM tickets WHERE key = ${key}`);
    if (!row) throw noSuchTicket(key, await findProject(q, projectOfKey(key)));
    return row.id;
  } catch (error) {
    throw argumentError(error, name, given, noneHint);
  }
}

/** The ticket with this exact key (upper case, trimmed), or undefined. */
export const ticketIdOf = async (q: Query, key: string) =>
  (await rowOf<{ id: number }>(q, sql`SELECT id FROM tickets WHERE key = ${key}`))?.id;

/** The domain's refusal of text that is not a key, with the facts its message names. */
async function notATicketKey(q: Query, given: string, key: string) {
  const number = numberOnly(key);
  const numbered = number
    ? (
        await rowsOf<{ key: string }>(
          q,
          sql`SELECT t.key FROM projects p JOIN tickets t ON t.key = p.key || '-' || ${number}::text
              ORDER BY p.key COLLATE "C" LIMIT ${NUMBERED_SHOWN + 1}`,
        )
      ).map((row) => row.key)
    : [];
  const project = PROJECT_KEY.test(key) ? await findProject(q, key) : undefined;
  const candidates = looseKeys(key);
  const meant = candidates.length
    ? await rowsOf<{ key: string; title: string }>(
        q,
        sql`SELECT key, title FROM tickets WHERE key IN (${sqlList(candidates)}) ORDER BY key COLLATE "C"`,
      )
    : [];
  return notAKey(given, key, { numbered, project, meant });
}
