import type { InvalidInput, NotFound } from '@shipyard/core';
import type { ShipyardDatabase } from '@shipyard/db';
import { eq, inArray, sql } from 'drizzle-orm';
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
import {
  type Change,
  historyText,
  PROJECT_KEY,
  projectOfKey,
  TICKET_KEY,
  type Ticket,
  toTicket as ticketOf,
} from '../../domain/model.js';
import { history, projects, type schema, tickets } from './schema.js';

/** The server's drizzle database (`$client` is its better-sqlite3 connection). */
export type TicketsDb = ShipyardDatabase<typeof schema>['db'];
/** A drizzle database or the transaction handle inside db.transaction(). */
export type Tx = Pick<TicketsDb, 'select' | 'insert' | 'update' | 'delete' | 'all' | 'get' | 'run'>;

export type ProjectRow = typeof projects.$inferSelect;
export type TicketRow = typeof tickets.$inferSelect;

/**
 * Run several reads in one read transaction, so they see one state of the database even while another
 * process commits (a count and the rows it counts, say).
 */
export const snapshot = <T>(db: TicketsDb, read: () => T): T => db.$client.transaction(read)();

/** Bound values as the list of an `IN (…)`, each once. */
export const sqlList = (values: readonly (string | number)[]) =>
  sql.join(
    [...new Set(values)].map((value) => sql`${value}`),
    sql`, `,
  );

/** The key of a ticket by its row id, or null when there is none. */
export function keyOfId(db: Tx, id: number): string | null {
  return db.select({ key: tickets.key }).from(tickets).where(eq(tickets.id, id)).get()?.key ?? null;
}

export const toTicket = (db: Tx, row: TicketRow): Ticket =>
  ticketOf(row, row.parentId ? keyOfId(db, row.parentId) : null);

/** The projects whose name is `text` in any case or spacing (see projectNameKey), in key order. */
export function projectsNamed(db: Tx, text: string): ProjectRow[] {
  const wanted = projectNameKey(text);
  if (!wanted) return [];
  return db
    .select()
    .from(projects)
    .orderBy(projects.key)
    .all()
    .filter((row) => projectNameKey(row.name) === wanted);
}

/** The domain's error for a project key that names no project, with the projects named like it. */
export function projectNotFound(db: Tx, given: string): NotFound | InvalidInput {
  const text = given.trim();
  return projectNotFoundError(given, TICKET_KEY.test(text.toUpperCase()) ? [] : projectsNamed(db, text));
}

export function getProjectRow(db: Tx, key: string): ProjectRow {
  const normalised = normaliseKey(key);
  const row = PROJECT_KEY.test(normalised) ? findProjectRow(db, normalised) : undefined;
  if (!row) throw projectNotFound(db, key);
  return row;
}

export function getTicketRow(db: Tx, key: string): TicketRow {
  const normalised = normaliseKey(key);
  if (!TICKET_KEY.test(normalised)) throw notAKey(db, key, normalised);
  const row = findTicketRow(db, normalised);
  if (!row) throw noSuchTicket(normalised, findProjectRow(db, projectOfKey(normalised)));
  return row;
}

/** The ticket an argument names, its errors naming the argument (see domain argumentError). */
export function ticketArgument(db: Tx, name: string, value: string, noneHint?: string): TicketRow {
  try {
    return getTicketRow(db, value);
  } catch (error) {
    throw argumentError(error, name, value, noneHint);
  }
}

/** The ticket with this exact key (upper case, trimmed), or undefined. */
export const findTicketRow = (db: Tx, key: string) =>
  db.select().from(tickets).where(eq(tickets.key, key)).get();
export const findProjectRow = (db: Tx, key: string) =>
  db.select().from(projects).where(eq(projects.key, key)).get();

/** Refuse text that is not a key, with the facts the domain's message names. */
function notAKey(db: Tx, given: string, normalised: string): InvalidInput {
  const number = numberOnly(normalised);
  const numbered = number
    ? db
        .all<{ key: string }>(
          sql`SELECT t.key AS key FROM projects p JOIN tickets t ON t.key = p.key || '-' || ${number}
              ORDER BY p.key LIMIT ${NUMBERED_SHOWN + 1}`,
        )
        .map((row) => row.key)
    : [];
  const project = PROJECT_KEY.test(normalised) ? findProjectRow(db, normalised) : undefined;
  const candidates = looseKeys(normalised);
  const meant = candidates.length
    ? db
        .select({ key: tickets.key, title: tickets.title })
        .from(tickets)
        .where(inArray(tickets.key, candidates))
        .orderBy(tickets.key)
        .all()
    : [];
  return notAKeyError(given, normalised, { numbered, project, meant });
}

/** Record field changes of one ticket (call inside the transaction that made them). */
export function recordHistory(
  db: Tx,
  ticketId: number,
  changes: readonly Change[],
  by: string | undefined,
  at: string,
) {
  if (changes.length === 0) return;
  db.insert(history)
    .values(
      changes.map((change) => ({
        ticketId,
        field: change.field,
        oldValue: historyText(change.old),
        newValue: historyText(change.new),
        changedBy: by ?? null,
        changedAt: at,
      })),
    )
    .run();
}

/**
 * URIs of other resources that show this ticket's title and status: its parent's (children) and its linked
 * tickets' pages and links pages, and with `blocking` the projects of the tickets it blocks (their blocked
 * lists). For notifications after a change of title or status; bounded, as a ticket can have many links.
 */
export function shownOn(db: Tx, key: string, { blocking = false } = {}): string[] {
  // Each part has its own bound, so a ticket with hundreds of links still names its parent and the projects
  // it blocks (one bound over the union would cut those first: they sort last).
  const blocked = sql`UNION SELECT * FROM (SELECT DISTINCT 'tickets://projects/' || p.key FROM me
    JOIN links l ON l.source_id = me.id AND l.type = 'blocks'
    JOIN tickets t ON t.id = l.target_id JOIN projects p ON p.id = t.project_id LIMIT 100)`;
  const rows = db.all<{ uri: string }>(sql`
    WITH me(id, parent_id) AS (SELECT id, parent_id FROM tickets WHERE key = ${key}),
      -- A linked ticket shows this one on its page and on its links page (CROSS JOIN keeps each ticket's two
      -- together under the bound).
      pages(part) AS (VALUES (''), ('/links'))
    SELECT 'tickets://' || t.key AS uri FROM me JOIN tickets t ON t.id = me.parent_id
    UNION SELECT * FROM (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.source_id = me.id
      JOIN tickets t ON t.id = l.target_id CROSS JOIN pages page LIMIT 500)
    UNION SELECT * FROM (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.target_id = me.id
      JOIN tickets t ON t.id = l.source_id CROSS JOIN pages page LIMIT 500)
    ${blocking ? blocked : sql``}`);
  return rows.map((row) => row.uri);
}
