import { preparedOnce } from '@shipyard/db';
import { count, desc, eq, sql } from 'drizzle-orm';
import { normaliseLabels, nowIso, parseLabels, priorityRank, type Ticket } from '../../domain/model.js';
import {
  COMMENTS_SHOWN,
  checkVersion,
  createdUris,
  HISTORY_SHOWN,
  type Include,
  PLAIN_FIELDS,
  type PlainField,
  patchChanges,
  transitionUris,
  updatedUris,
} from '../../domain/tickets.js';
import { decideTransition, ownParent, parentCycle } from '../../domain/workflow.js';
import type {
  Changed,
  NewTicket,
  TicketDetailsData,
  TicketPatch,
  Transition,
  TransitionResult,
} from '../rows.js';
import { insertComment, lastComments } from './comments.js';
import { indexBatchAt } from './indexing.js';
import { linksOf } from './links.js';
import {
  getProjectRow,
  getTicketRow,
  keyOfId,
  projectNotFound,
  recordHistory,
  shownOn,
  type TicketRow,
  type TicketsDb,
  type Tx,
  ticketArgument,
  toTicket,
} from './model.js';
import { history, tickets } from './schema.js';

/**
 * Text as createTicket stores it: a lone surrogate (half of an emoji) becomes U+FFFD, as the stdio and HTTP
 * transports already make it. Stored as it is, it would read back as three U+FFFD, not as the ticket answered.
 */
function asStored<T extends string | null>(text: T): T {
  return (text === null ? text : (text as string & { toWellFormed(): string }).toWellFormed()) as T;
}

/**
 * createTicket's statements and transaction, prepared once per database on the raw connection. It is the
 * hottest write, and drizzle's per-call transaction wrapper and row mapping cost a large share of it.
 * The values are bound by position and only the new id comes back, which is cheaper than named values
 * and the whole row.
 */
function prepareCreate(db: TicketsDb) {
  const sqlite = db.$client;
  /** Takes the project's next number; no row when there is no such project. */
  const bump = sqlite.prepare<[string], { id: number; key: string; number: number }>(
    'UPDATE projects SET last_number = last_number + 1 WHERE key = ? RETURNING id, key, last_number AS number',
  );
  const insert = sqlite
    .prepare<unknown[], number>(
      `INSERT INTO tickets (project_id, number, key, title, description, type, status, priority, priority_rank,
         assignee, reporter, labels, estimate, due_date, parent_id, resolution, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       RETURNING id`,
    )
    .pluck();
  const created = sqlite.prepare<[number, string, string | null, string]>(
    `INSERT INTO history (ticket_id, field, new_value, changed_by, changed_at) VALUES (?, 'created', ?, ?, ?)`,
  );
  return sqlite.transaction((input: NewTicket, user: string | undefined): Ticket => {
    // The parent before the bump, which would count one key too many in the parent's error (the keys there
    // are); but an unknown project is the first thing to say. A failure after the bump rolls it back.
    const parentId =
      input.parent === undefined || input.parent === null
        ? null
        : parentOfNew(db, input.parent, input.project);
    const found = bump.get(input.project.toUpperCase());
    if (!found) throw projectNotFound(db, input.project);
    const priority = input.priority ?? 'none';
    const at = nowIso();
    // Every column but the id is given, so this is the row as stored; the ticket is built from it.
    const row: TicketRow = {
      id: 0,
      projectId: found.id,
      number: found.number,
      key: `${found.key}-${found.number}`,
      title: asStored(input.title),
      description: asStored(input.description ?? ''),
      type: input.type ?? 'task',
      status: 'backlog',
      priority,
      priorityRank: priorityRank(priority),
      assignee: asStored(input.assignee ?? null),
      reporter: asStored(input.reporter === undefined ? (user ?? null) : input.reporter),
      labels: JSON.stringify(normaliseLabels(input.labels ?? [])),
      // SQLite stores -0 as 0.
      estimate: input.estimate === undefined || input.estimate === null ? null : input.estimate + 0,
      dueDate: input.due_date ?? null,
      parentId,
      resolution: null,
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    const id = insert.get(
      row.projectId,
      row.number,
      row.key,
      row.title,
      row.description,
      row.type,
      row.status,
      row.priority,
      row.priorityRank,
      row.assignee,
      row.reporter,
      row.labels,
      row.estimate,
      row.dueDate,
      row.parentId,
      row.resolution,
      row.version,
      row.createdAt,
      row.updatedAt,
    );
    if (id === undefined) throw new Error(`inserting ${row.key} returned no row`);
    row.id = id;
    created.run(row.id, row.key, user ?? null, at);
    // New tickets reach the full-text index in batches.
    indexBatchAt(db, row.id, row.title.length + row.description.length);
    return toTicket(db, row);
  }).immediate;
}

/**
 * Create a ticket with the next key of its project. The counter is read and bumped inside one IMMEDIATE
 * transaction, so two processes creating at once never get the same key or leave a gap. `changed` holds
 * the ticket's pages, the project list (its counts), and its parent's page and its project's labels page
 * when it shows there.
 */
export function createTicket(
  db: TicketsDb,
  input: NewTicket,
  user?: string,
): { ticket: Ticket; changed: string[] } {
  const ticket = preparedOnce(db, prepareCreate)(input, user);
  return { ticket, changed: createdUris(ticket) };
}

/**
 * One ticket in full, with counts of its comments and history, and on request its latest comments
 * (oldest first), its links grouped by relation, and its latest history entries (oldest first).
 */
export function getTicketDetails(
  db: TicketsDb,
  key: string,
  include: readonly Include[],
  /** Show the comments before this comment id (older ones), not the latest. */
  before?: number,
): TicketDetailsData {
  // One read transaction, so the ticket, its comments, links and history come from one snapshot.
  return db.transaction((tx) => {
    const row = getTicketRow(tx, key);
    const latest = lastComments(tx, row.id, include.includes('comments') ? COMMENTS_SHOWN : 0, before);
    const details: TicketDetailsData = {
      ticket: toTicket(tx, row),
      comments_total: latest.total,
      history_total:
        tx.select({ n: count() }).from(history).where(eq(history.ticketId, row.id)).get()?.n ?? 0,
    };
    if (include.includes('comments')) details.comments = latest.comments;
    if (include.includes('links')) details.links = linksOf(tx, row.id);
    if (include.includes('history')) {
      details.history = tx
        .select({
          field: history.field,
          old: history.oldValue,
          new: history.newValue,
          by: history.changedBy,
          at: history.changedAt,
        })
        .from(history)
        .where(eq(history.ticketId, row.id))
        .orderBy(desc(history.id))
        .limit(HISTORY_SHOWN)
        .all()
        .reverse();
    }
    return details;
  });
}

/** Plain fields: input name and column. */
/** The column of each plain field. */
const COLUMNS = {
  title: 'title',
  description: 'description',
  type: 'type',
  priority: 'priority',
  assignee: 'assignee',
  estimate: 'estimate',
  due_date: 'dueDate',
} as const satisfies Record<PlainField, keyof TicketRow>;

/**
 * Change some fields of a ticket. Only fields that differ are written; each is recorded in history, and the
 * version and updated_at move only when something changed. One IMMEDIATE transaction, so the version check
 * and the write cannot interleave with another process.
 */
export function updateTicket(
  db: TicketsDb,
  input: TicketPatch,
  user?: string,
): { ticket: Ticket; fields: string[] } & Changed {
  return db.transaction(
    (tx) => {
      const row = getTicketRow(tx, input.key);
      checkVersion(row, input.expected_version);
      const set: Partial<typeof tickets.$inferInsert> = {};
      const parents: string[] = [];
      const current = Object.fromEntries(PLAIN_FIELDS.map((field) => [field, row[COLUMNS[field]]]));
      const changes = patchChanges(
        Object.assign(current as Pick<Ticket, PlainField>, { labels: parseLabels(row.labels) }),
        input,
      );
      for (const change of changes) {
        if (change.field === 'labels') set.labels = JSON.stringify(change.new);
        else Object.assign(set, { [COLUMNS[change.field as PlainField]]: change.new });
      }
      if (set.priority) set.priorityRank = priorityRank(set.priority);

      if (input.parent !== undefined) {
        const oldParent = row.parentId === null ? null : keyOfId(tx, row.parentId);
        const parent = input.parent === null ? null : findParent(tx, input.parent);
        if ((parent?.id ?? null) !== row.parentId) {
          if (parent) checkNoCycle(tx, row, parent);
          changes.push({ field: 'parent', old: oldParent, new: parent?.key ?? null });
          set.parentId = parent?.id ?? null;
          for (const key of [oldParent, parent?.key]) if (key) parents.push(key);
        }
      }

      if (changes.length === 0) return { ticket: toTicket(tx, row), fields: [], changed: [] };
      const at = nowIso();
      const updated = tx
        .update(tickets)
        .set({ ...set, version: row.version + 1, updatedAt: at })
        .where(eq(tickets.id, row.id))
        .returning()
        .get();
      recordHistory(tx, row.id, changes, user, at);
      // A ticket that waits for the full-text index and now has a long text is indexed at once.
      indexBatchAt(db, row.id, updated.title.length + updated.description.length);
      const fields = changes.map((c) => c.field);
      const changed = updatedUris(row.key, fields, parents, () => shownOn(tx, row.key));
      return { ticket: toTicket(tx, updated), fields, changed };
    },
    { behavior: 'immediate' },
  );
}

/** A new ticket's parent; when there is none such, the project's error comes first, if it has one. */
function parentOfNew(tx: Tx, key: string, project: string): number {
  try {
    return findParent(tx, key).id;
  } catch (error) {
    getProjectRow(tx, project);
    throw error;
  }
}

/** The parent ticket by key; errors name the `parent` argument. */
const findParent = (tx: Tx, key: string): TicketRow =>
  ticketArgument(
    tx,
    'parent',
    key,
    'Pass a key such as SHIP-42; for no parent, leave parent out (update_ticket: null clears it)',
  );

/**
 * Parents form a forest: refuse a parent that is the ticket itself or one of its descendants, naming the
 * chain (child -> parent) the change would close.
 */
function checkNoCycle(tx: Tx, ticket: TicketRow, parent: TicketRow): void {
  if (parent.id === ticket.id) throw ownParent(ticket.key);
  // The parent's ancestors, nearest first, in one statement (not a query each), up to
  // the ticket itself if it is one of them. UNION keeps each ticket once, so a loop that a broken file may
  // hold ends the walk; rows come out in the order the walk meets them (SQLite's queue is first in, first
  // out), and the key is read per row so that no join reorders them.
  const ancestors = tx.all<{ id: number; key: string }>(sql`
    WITH RECURSIVE up(id) AS (
      SELECT parent_id FROM tickets WHERE id = ${parent.id} AND parent_id IS NOT NULL
      UNION
      SELECT t.parent_id FROM up JOIN tickets t ON t.id = up.id
      WHERE t.parent_id IS NOT NULL AND up.id <> ${ticket.id}
    )
    SELECT id, (SELECT key FROM tickets WHERE tickets.id = up.id) AS key FROM up`);
  if (ancestors.at(-1)?.id !== ticket.id) return;
  throw parentCycle(
    ticket.key,
    parent.key,
    ancestors.map((row) => row.key),
  );
}

/**
 * Move a ticket along the workflow (TRANSITIONS), several statuses in one call and one history entry. Closing (done, cancelled) sets the resolution, reopening
 * clears it, and a closed ticket given its own status with another resolution takes that resolution (the
 * only way to correct one without reopening the ticket). Status and resolution changes go to history, an
 * optional comment is added by the user, all in one IMMEDIATE transaction.
 */
export function transitionTicket(
  db: TicketsDb,
  input: Transition,
  user?: string,
): { result: TransitionResult } & Changed {
  return db.transaction(
    (tx) => {
      const row = getTicketRow(tx, input.key);
      checkVersion(row, input.expected_version);
      const { resolution, changes } = decideTransition(row, input);
      const at = nowIso();
      const updated = tx
        .update(tickets)
        .set({ status: input.status, resolution, version: row.version + 1, updatedAt: at })
        .where(eq(tickets.id, row.id))
        .returning()
        .get();
      recordHistory(tx, row.id, changes, user, at);
      if (input.comment !== undefined) insertComment(tx, row.id, input.comment, user, at);
      const result: TransitionResult = {
        key: updated.key,
        status: updated.status,
        resolution: updated.resolution,
        version: updated.version,
        updated_at: updated.updatedAt,
      };
      const ticket = { key: row.key, status: row.status, labelled: row.labels !== '[]' };
      const changed = transitionUris(ticket, input.status, (options) => shownOn(tx, row.key, options));
      return { result, changed };
    },
    { behavior: 'immediate' },
  );
}
