/**
 * What the PostgreSQL store's parts share: rows as PostgreSQL returns them, lookups by key with the
 * domain's errors (optionally locking the row), and the mapping to the store's plain data.
 */
import type { InvalidInput, NotFound } from '@shipyard/core';
import type { Comment } from '../../domain/comments.js';
import {
  argumentError,
  looseKeys,
  NUMBERED_SHOWN,
  normaliseKey,
  noSuchTicket,
  notAKey as notAKeyError,
  numberOnly,
  projectNameKey,
  projectNotFound as projectNotFoundError,
} from '../../domain/keys.js';
import { groupLinks, type TicketLinks } from '../../domain/links.js';
import {
  type Change,
  historyText,
  OPEN_STATUSES,
  PROJECT_KEY,
  type Priority,
  projectOfKey,
  type Status,
  TICKET_KEY,
  type Ticket,
  type TicketType,
  toTicket as ticketOf,
} from '../../domain/model.js';
import type { Query } from './access.js';

export type { Query };

/** A ticket row as PostgreSQL returns it (without its search document). */
export interface TicketDbRow {
  id: number;
  project_id: number;
  number: number;
  key: string;
  title: string;
  description: string;
  type: TicketType;
  status: Status;
  priority: Priority;
  priority_rank: number;
  assignee: string | null;
  reporter: string | null;
  labels: string;
  estimate: number | null;
  due_date: string | null;
  parent_id: number | null;
  resolution: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** The columns of a ticket row, for `SELECT ${TICKET_COLUMNS} FROM tickets` (not the search document). */
export const TICKET_COLUMNS =
  'id, project_id, number, key, title, description, type, status, priority, priority_rank, assignee, ' +
  'reporter, labels, estimate, due_date, parent_id, resolution, version, created_at, updated_at';

/** Whether a number can be a serial column's id (a whole number from 1 to 2^31 - 1). */
export const isSerial = (id: number) => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647;

/** The open statuses as one bound parameter: `status = ANY($n)`. */
export const OPEN = [...OPEN_STATUSES];

/**
 * How a lookup locks the row it finds until the transaction ends: true, FOR UPDATE (the write decides on
 * it); 'key share', FOR KEY SHARE (it must stay, as a new reference to it is written); false, not at all.
 */
export type RowLock = boolean | 'key share';

const lockClause = (lock: RowLock) => (lock === 'key share' ? ' FOR KEY SHARE' : lock ? ' FOR UPDATE' : '');

/** The ticket with this exact key (upper case, trimmed), or undefined; `lock` locks its row (RowLock). */
export async function findTicketRow(
  q: Query,
  key: string,
  lock: RowLock = false,
): Promise<TicketDbRow | undefined> {
  const { rows } = await q.query<TicketDbRow>(
    `SELECT ${TICKET_COLUMNS} FROM tickets WHERE key = $1${lockClause(lock)}`,
    [key],
  );
  return rows[0];
}

/** A project's last ticket number by its exact key, or undefined (what a ticket key's error names). */
async function projectNumbers(q: Query, key: string): Promise<{ lastNumber: number } | undefined> {
  const { rows } = await q.query<{ last_number: number }>('SELECT last_number FROM projects WHERE key = $1', [
    key,
  ]);
  return rows[0] ? { lastNumber: rows[0].last_number } : undefined;
}

/** Refuse text that is not a key, with the facts the domain's message names. */
async function notAKey(q: Query, given: string, normalised: string): Promise<InvalidInput> {
  const number = numberOnly(normalised);
  const numbered = number
    ? (
        await q.query<{ key: string }>(
          `SELECT t.key FROM projects p JOIN tickets t ON t.key = p.key || '-' || $1
           ORDER BY p.key COLLATE "C" LIMIT $2`,
          [number, NUMBERED_SHOWN + 1],
        )
      ).rows.map((row) => row.key)
    : [];
  const project = PROJECT_KEY.test(normalised) ? await projectNumbers(q, normalised) : undefined;
  const candidates = looseKeys(normalised);
  const meant = candidates.length
    ? (
        await q.query<{ key: string; title: string }>(
          'SELECT key, title FROM tickets WHERE key = ANY($1) ORDER BY key COLLATE "C"',
          [candidates],
        )
      ).rows
    : [];
  return notAKeyError(given, normalised, { numbered, project, meant });
}

/** A ticket by key as given (any case, padded); the domain's error when there is none. */
export async function getTicketRow(q: Query, key: string, lock: RowLock = false): Promise<TicketDbRow> {
  const normalised = normaliseKey(key);
  if (!TICKET_KEY.test(normalised)) throw await notAKey(q, key, normalised);
  const row = await findTicketRow(q, normalised, lock);
  if (!row) throw noSuchTicket(normalised, await projectNumbers(q, projectOfKey(normalised)));
  return row;
}

/** The ticket an argument names, its errors naming the argument (see domain argumentError). */
export async function ticketArgument(
  q: Query,
  name: string,
  value: string,
  options: { noneHint?: string | undefined; lock?: RowLock } = {},
): Promise<TicketDbRow> {
  try {
    return await getTicketRow(q, value, options.lock);
  } catch (error) {
    throw argumentError(error, name, value, options.noneHint);
  }
}

/**
 * Lock ticket rows FOR UPDATE in id order (so two writers locking the same tickets cannot deadlock); how
 * many of them are still there.
 */
export async function lockTickets(tx: Query, ids: readonly number[]): Promise<number> {
  const { rows } = await tx.query('SELECT id FROM tickets WHERE id = ANY($1) ORDER BY id FOR UPDATE', [
    [...new Set(ids)],
  ]);
  return rows.length;
}

/** A ticket as the store gives it (its parent's key read by id). */
export async function toTicket(q: Query, row: TicketDbRow): Promise<Ticket> {
  const parent =
    row.parent_id === null
      ? null
      : ((await q.query<{ key: string }>('SELECT key FROM tickets WHERE id = $1', [row.parent_id])).rows[0]
          ?.key ?? null);
  return ticketOf(
    { ...row, dueDate: row.due_date, updatedAt: row.updated_at, createdAt: row.created_at },
    parent,
  );
}

/** Record field changes of one ticket, in order, in one statement (inside the write that made them). */
export async function recordHistory(
  tx: Query,
  ticketId: number,
  changes: readonly Change[],
  by: string | undefined,
  at: string,
): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `INSERT INTO history (ticket_id, field, old_value, new_value, changed_by, changed_at)
     SELECT $1, field, old_value, new_value, $5, $6
     FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS c(field, old_value, new_value, n)
     ORDER BY n`,
    [
      ticketId,
      changes.map((change) => change.field),
      changes.map((change) => historyText(change.old)),
      changes.map((change) => historyText(change.new)),
      by ?? null,
      at,
    ],
  );
}

/** A comment row as PostgreSQL returns it. */
export interface CommentDbRow {
  id: number;
  ticket_id: number;
  author: string | null;
  body: string;
  created_at: string;
}

export const toComment = (row: CommentDbRow): Comment => ({
  id: row.id,
  author: row.author,
  body: row.body,
  created_at: row.created_at,
});

/** Store a comment by `by` (inside the caller's write); transition_ticket adds one this way too. */
export async function insertComment(
  tx: Query,
  ticketId: number,
  body: string,
  by: string | undefined,
  at: string,
): Promise<Comment> {
  const { rows } = await tx.query<CommentDbRow>(
    'INSERT INTO comments (ticket_id, author, body, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
    [ticketId, by ?? null, body, at],
  );
  return toComment(rows[0] as CommentDbRow);
}

/**
 * The last `limit` comments of a ticket (before the comment id `before`, when given), oldest first, and how
 * many it has in all.
 */
export async function lastComments(
  q: Query,
  ticketId: number,
  limit: number,
  before?: number,
): Promise<{ total: number; comments: Comment[] }> {
  const total = (
    await q.query<{ n: number }>('SELECT count(*)::int AS n FROM comments WHERE ticket_id = $1', [ticketId])
  ).rows[0]?.n;
  const { rows } =
    limit > 0
      ? await q.query<CommentDbRow>(
          `SELECT * FROM comments WHERE ticket_id = $1 AND ($2::int IS NULL OR id < $2)
           ORDER BY id DESC LIMIT $3`,
          // Before an id past the column's range is before every comment.
          [ticketId, before === undefined || before > 2_147_483_647 ? null : before, limit],
        )
      : { rows: [] };
  return { total: total ?? 0, comments: rows.reverse().map(toComment) };
}

/** Every link of one ticket, grouped by how it reads from this ticket, each group open first, then by key. */
export async function linksOf(q: Query, ticketId: number): Promise<TicketLinks> {
  const { rows } = await q.query<{
    outgoing: boolean;
    type: 'blocks' | 'duplicates' | 'relates';
    key: string;
    title: string;
    status: Status;
  }>(
    // Open tickets first, then by key: where a type has more links than are shown, the ones still in the
    // way (a release's open blockers) are shown.
    `SELECT l.source_id = $1 AS outgoing, l.type, t.key, t.title, t.status
     FROM links l
     JOIN tickets t ON t.id = CASE WHEN l.source_id = $1 THEN l.target_id ELSE l.source_id END
     JOIN projects p ON p.id = t.project_id
     WHERE l.source_id = $1 OR l.target_id = $1
     ORDER BY t.status = ANY($2) DESC, p.key COLLATE "C", t.number`,
    [ticketId, OPEN],
  );
  return groupLinks(rows, (row) => row.outgoing);
}

// ---------------------------------------------------------------------------------------------------------
// Projects, and the pages that show a ticket

/** A project row, camel case as the SQLite store's. */
export interface ProjectRow {
  id: number;
  key: string;
  name: string;
  description: string;
  lastNumber: number;
  createdAt: string;
  archivedAt: string | null;
}

/** The columns of a ProjectRow, of `projects p` (in a SELECT, or the RETURNING of `projects AS p`). */
export const PROJECT_COLUMNS = `p.id, p.key, p.name, p.description, p.last_number AS "lastNumber",
  p.created_at AS "createdAt", p.archived_at AS "archivedAt"`;

/** The project with this exact key (upper case, trimmed), or undefined; `lock`: FOR UPDATE. */
export async function findProjectRow(q: Query, key: string, lock = false): Promise<ProjectRow | undefined> {
  const { rows } = await q.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.key = $1${lock ? ' FOR UPDATE' : ''}`,
    [key],
  );
  return rows[0];
}

/** The projects whose name is `text` in any case or spacing (domain projectNameKey), in key order. */
export async function projectsNamed(q: Query, text: string): Promise<ProjectRow[]> {
  const wanted = projectNameKey(text);
  if (!wanted) return [];
  const { rows } = await q.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p ORDER BY p.key COLLATE "C"`,
  );
  return rows.filter((row) => projectNameKey(row.name) === wanted);
}

/** The domain's error for a project key that names no project, with the projects named like it. */
export async function projectNotFound(q: Query, given: string): Promise<NotFound | InvalidInput> {
  const text = given.trim();
  return projectNotFoundError(given, TICKET_KEY.test(text.toUpperCase()) ? [] : await projectsNamed(q, text));
}

/** The project a key names (any case, padded or not); the domain's error when none does. */
export async function getProjectRow(q: Query, key: string, lock = false): Promise<ProjectRow> {
  const normalised = normaliseKey(key);
  const row = PROJECT_KEY.test(normalised) ? await findProjectRow(q, normalised, lock) : undefined;
  if (!row) throw await projectNotFound(q, key);
  return row;
}

/**
 * URIs of other resources that show this ticket's title and status: its parent's (children) and its linked
 * tickets' pages and links pages, and with `blocking` the projects of the tickets it blocks (their blocked
 * lists). Each part has its own bound, as on SQLite, so a ticket with many links still names its parent.
 */
export async function shownOn(q: Query, key: string, { blocking = false } = {}): Promise<string[]> {
  const blocked = `UNION (SELECT DISTINCT 'tickets://projects/' || p.key FROM me
    JOIN links l ON l.source_id = me.id AND l.type = 'blocks'
    JOIN tickets t ON t.id = l.target_id JOIN projects p ON p.id = t.project_id LIMIT 100)`;
  const { rows } = await q.query<{ uri: string }>(
    `WITH me(id, parent_id) AS (SELECT id, parent_id FROM tickets WHERE key = $1),
       pages(part) AS (VALUES (''), ('/links'))
     SELECT uri FROM (
     SELECT 'tickets://' || t.key AS uri FROM me JOIN tickets t ON t.id = me.parent_id
     UNION (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.source_id = me.id
       JOIN tickets t ON t.id = l.target_id CROSS JOIN pages page LIMIT 500)
     UNION (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.target_id = me.id
       JOIN tickets t ON t.id = l.source_id CROSS JOIN pages page LIMIT 500)
     ${blocking ? blocked : ''}
     ) shown ORDER BY uri COLLATE "C"`,
    [key],
  );
  return rows.map((row) => row.uri);
}
