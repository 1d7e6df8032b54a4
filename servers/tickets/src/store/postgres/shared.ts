/**
 * What the parts of the PostgreSQL store share: rows by key (optionally locked FOR UPDATE), rows as the
 * store gives them, history and comment inserts, a ticket's links, and the pages that show a ticket.
 * Errors are the domain's, with the facts the SQLite store finds for them.
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
import type { LinkType, TicketLinks } from '../../domain/links.js';
import {
  type Change,
  historyText,
  OPEN_STATUSES,
  PROJECT_KEY,
  type Priority,
  parseLabels,
  projectOfKey,
  type Status,
  TICKET_KEY,
  type Ticket,
  type TicketSummary,
  type TicketType,
} from '../../domain/model.js';
import type { Project } from '../../domain/projects.js';
import type { Query } from './access.js';

export type { Query } from './access.js';

/** A ticket row as the SQLite store's (camel case), with its parent's key. */
export interface TicketRow {
  id: number;
  projectId: number;
  number: number;
  key: string;
  title: string;
  description: string;
  type: TicketType;
  status: Status;
  priority: Priority;
  priorityRank: number;
  assignee: string | null;
  reporter: string | null;
  /** A JSON array of labels. */
  labels: string;
  estimate: number | null;
  dueDate: string | null;
  parentId: number | null;
  resolution: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** The parent's key (null without a parent). */
  parentKey: string | null;
}

export interface ProjectRow {
  id: number;
  key: string;
  name: string;
  description: string;
  lastNumber: number;
  createdAt: string;
  archivedAt: string | null;
}

/**
 * The columns of a TicketRow, of `tickets t` (in a SELECT, or the RETURNING of an UPDATE of `tickets t`).
 * The parent's key is read by a subquery, which FOR UPDATE OF t does not lock.
 */
export const TICKET_COLUMNS = `t.id, t.project_id AS "projectId", t.number, t.key, t.title, t.description,
  t.type, t.status, t.priority, t.priority_rank AS "priorityRank", t.assignee, t.reporter, t.labels,
  t.estimate, t.due_date AS "dueDate", t.parent_id AS "parentId", t.resolution, t.version,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt",
  (SELECT parent.key FROM tickets parent WHERE parent.id = t.parent_id) AS "parentKey"`;

/** The columns of a ProjectRow, of `projects p`. */
export const PROJECT_COLUMNS = `p.id, p.key, p.name, p.description, p.last_number AS "lastNumber",
  p.created_at AS "createdAt", p.archived_at AS "archivedAt"`;

/** Whether a lookup locks the row it finds (FOR UPDATE) until the transaction ends. */
export interface Lock {
  lock?: boolean | undefined;
}

export function toSummary(
  row: Pick<
    TicketRow,
    'key' | 'title' | 'type' | 'status' | 'priority' | 'assignee' | 'labels' | 'updatedAt'
  >,
): TicketSummary {
  return {
    key: row.key,
    title: row.title,
    type: row.type,
    status: row.status,
    priority: row.priority,
    assignee: row.assignee,
    labels: parseLabels(row.labels),
    updated_at: row.updatedAt,
  };
}

export function toTicket(row: TicketRow): Ticket {
  return Object.assign(toSummary(row), {
    project: projectOfKey(row.key),
    description: row.description,
    reporter: row.reporter,
    estimate: row.estimate,
    due_date: row.dueDate,
    parent: row.parentKey,
    resolution: row.resolution,
    version: row.version,
    created_at: row.createdAt,
  });
}

export const toProject = (row: ProjectRow): Project => ({
  key: row.key,
  name: row.name,
  description: row.description,
  archived: row.archivedAt !== null,
  created_at: row.createdAt,
});

/** The ticket with this exact key (upper case, trimmed), or undefined. */
export async function findTicketRow(
  q: Query,
  key: string,
  { lock }: Lock = {},
): Promise<TicketRow | undefined> {
  const { rows } = await q.query<TicketRow>(
    `SELECT ${TICKET_COLUMNS} FROM tickets t WHERE t.key = $1${lock ? ' FOR UPDATE OF t' : ''}`,
    [key],
  );
  return rows[0];
}

/** The project with this exact key (upper case, trimmed), or undefined. */
export async function findProjectRow(
  q: Query,
  key: string,
  { lock }: Lock = {},
): Promise<ProjectRow | undefined> {
  const { rows } = await q.query<ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.key = $1${lock ? ' FOR UPDATE OF p' : ''}`,
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
export async function getProjectRow(q: Query, key: string, options: Lock = {}): Promise<ProjectRow> {
  const normalised = normaliseKey(key);
  const row = PROJECT_KEY.test(normalised) ? await findProjectRow(q, normalised, options) : undefined;
  if (!row) throw await projectNotFound(q, key);
  return row;
}

/** The ticket a key names (any case, padded or not); the domain's error when none does. */
export async function getTicketRow(q: Query, key: string, options: Lock = {}): Promise<TicketRow> {
  const normalised = normaliseKey(key);
  if (!TICKET_KEY.test(normalised)) throw await notAKey(q, key, normalised);
  const row = await findTicketRow(q, normalised, options);
  if (!row) throw noSuchTicket(normalised, await findProjectRow(q, projectOfKey(normalised)));
  return row;
}

/** The ticket an argument names, its errors naming the argument (see domain argumentError). */
export async function ticketArgument(
  q: Query,
  name: string,
  value: string,
  noneHint?: string,
  options: Lock = {},
): Promise<TicketRow> {
  try {
    return await getTicketRow(q, value, options);
  } catch (error) {
    throw argumentError(error, name, value, noneHint);
  }
}

/** Refuse text that is not a key, with the facts the domain's message names. */
async function notAKey(q: Query, given: string, normalised: string): Promise<InvalidInput> {
  const number = numberOnly(normalised);
  const numbered = number
    ? (
        await q.query<{ key: string }>(
          `SELECT t.key FROM projects p JOIN tickets t ON t.key = p.key || '-' || $1::text
           ORDER BY p.key COLLATE "C" LIMIT $2`,
          [number, NUMBERED_SHOWN + 1],
        )
      ).rows.map((row) => row.key)
    : [];
  const project = PROJECT_KEY.test(normalised) ? await findProjectRow(q, normalised) : undefined;
  const candidates = looseKeys(normalised);
  const meant = candidates.length
    ? (
        await q.query<{ key: string; title: string }>(
          'SELECT key, title FROM tickets WHERE key = ANY($1::text[]) ORDER BY key COLLATE "C"',
          [candidates],
        )
      ).rows
    : [];
  return notAKeyError(given, normalised, { numbered, project, meant });
}

/** The key of a ticket by its row id, or null when there is none. */
export async function keyOfId(q: Query, id: number): Promise<string | null> {
  const { rows } = await q.query<{ key: string }>('SELECT key FROM tickets WHERE id = $1', [id]);
  return rows[0]?.key ?? null;
}

/** Record field changes of one ticket, in order (call inside the transaction that made them). */
export async function recordHistory(
  q: Query,
  ticketId: number,
  changes: readonly Change[],
  by: string | undefined,
  at: string,
): Promise<void> {
  if (changes.length === 0) return;
  await q.query(
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

/** Store a comment by `by` (inside the caller's transaction); transition_ticket adds one this way too. */
export async function insertComment(
  q: Query,
  ticketId: number,
  body: string,
  by: string | undefined,
  at: string,
): Promise<Comment> {
  const { rows } = await q.query<Comment>(
    `INSERT INTO comments (ticket_id, author, body, created_at) VALUES ($1, $2, $3, $4)
     RETURNING id, author, body, created_at`,
    [ticketId, by ?? null, body, at],
  );
  return rows[0] as Comment;
}

/** Every link of one ticket, grouped by how it reads from this ticket, each group open first, then by key. */
export async function linksOf(q: Query, ticketId: number): Promise<TicketLinks> {
  const { rows } = await q.query<{
    sourceId: number;
    type: LinkType;
    key: string;
    title: string;
    status: Status;
  }>(
    `SELECT l.source_id AS "sourceId", l.type, t.key, t.title, t.status
     FROM links l
     JOIN tickets t ON (l.source_id = $1 AND t.id = l.target_id) OR (l.target_id = $1 AND t.id = l.source_id)
     JOIN projects p ON p.id = t.project_id
     WHERE l.source_id = $1 OR l.target_id = $1
     ORDER BY t.status = ANY($2::text[]) DESC, p.key COLLATE "C", t.number`,
    [ticketId, [...OPEN_STATUSES]],
  );
  const grouped: TicketLinks = { blocks: [], blocked_by: [], duplicates: [], duplicated_by: [], relates: [] };
  for (const row of rows) {
    const outgoing = row.sourceId === ticketId;
    const direction: LinkType =
      row.type === 'relates'
        ? 'relates'
        : outgoing
          ? row.type
          : row.type === 'blocks'
            ? 'blocked_by'
            : 'duplicated_by';
    grouped[direction].push({ key: row.key, title: row.title, status: row.status });
  }
  return grouped;
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
     SELECT 'tickets://' || t.key AS uri FROM me JOIN tickets t ON t.id = me.parent_id
     UNION (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.source_id = me.id
       JOIN tickets t ON t.id = l.target_id CROSS JOIN pages page LIMIT 500)
     UNION (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.target_id = me.id
       JOIN tickets t ON t.id = l.source_id CROSS JOIN pages page LIMIT 500)
     ${blocking ? blocked : ''}
     ORDER BY 1 COLLATE "C"`,
    [key],
  );
  return rows.map((row) => row.uri);
}
