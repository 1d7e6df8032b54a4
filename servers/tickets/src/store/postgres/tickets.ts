/** Ticket writes: create (the project's counter bumped in the same transaction), update, transition, bulk, delete. */
import { isShipyardError } from '@shipyard/core';
import {
  type BulkChange,
  type BulkResult,
  bulkLabels,
  bulkStatus,
  checkKeysOnce,
} from '../../domain/bulk.js';
import { normaliseKey } from '../../domain/keys.js';
import {
  normaliseLabels,
  nowIso,
  opensOrCloses,
  type Priority,
  parseLabels,
  priorityRank,
  ticketUris,
} from '../../domain/model.js';
import { resolvePerson } from '../../domain/people.js';
import { checkRemovable, deletedTicket, deleteUris, linkedOf, linkGone } from '../../domain/removal.js';
import {
  checkVersion,
  createdUris,
  type PlainField,
  patchChanges,
  transitionUris,
  updatedUris,
} from '../../domain/tickets.js';
import { decideTransition, ownParent, parentCycle } from '../../domain/workflow.js';
import type { NewTicket, TicketPatch, TicketsStore, Transition, TransitionResult } from '../types.js';
import type { PgAccess } from './access.js';
import { linkWithin, lockLinkGraph } from './links.js';
import {
  getProjectRow,
  getTicketRow,
  insertComment,
  linksOf,
  projectNotFound,
  type Query,
  recordHistory,
  shownOn,
  TICKET_COLUMNS,
  type TicketDbRow,
  ticketArgument,
  toTicket,
} from './shared.js';

export type TicketsPart = Pick<
  TicketsStore,
  'createTicket' | 'updateTicket' | 'transitionTicket' | 'bulkUpdate' | 'deleteTicket'
>;

/** The column each plain field is stored in (fixed names: no input reaches the SQL text). */
const COLUMNS: Record<PlainField, string> = {
  title: 'title',
  description: 'description',
  type: 'type',
  priority: 'priority',
  assignee: 'assignee',
  estimate: 'estimate',
  due_date: 'due_date',
};

/**
 * Writes that give a ticket a parent hold this transaction-scoped lock, taken before any row lock: whether
 * a parent closes a cycle depends on rows no write locks (two tickets made each other's parent at once would
 * both pass their checks). Nothing else takes it.
 */
const lockParents = (tx: Query) =>
  tx.query(`SELECT pg_advisory_xact_lock(hashtext('shipyard.tickets.parents'))`);

/** The parent ticket by key, kept from being deleted until the write ends; errors name `parent`. */
const findParent = (tx: Query, key: string): Promise<TicketDbRow> =>
  ticketArgument(tx, 'parent', key, {
    noneHint: 'Pass a key such as SHIP-42; for no parent, leave parent out (update_ticket: null clears it)',
    lock: 'key share',
  });

/** A new ticket's parent; when there is none such, the project's error comes first, if it has one. */
async function parentOfNew(tx: Query, key: string, project: string): Promise<number> {
  try {
    return (await findParent(tx, key)).id;
  } catch (error) {
    await getProjectRow(tx, project);
    throw error;
  }
}

/**
 * Parents form a forest: refuse a parent that is the ticket itself or one of its descendants. The parent's
 * ancestors, nearest first, in one statement, up to the ticket itself if it is one of them.
 */
async function checkNoCycle(tx: Query, ticket: TicketDbRow, parent: TicketDbRow): Promise<void> {
  if (parent.id === ticket.id) throw ownParent(ticket.key);
  const { rows } = await tx.query<{ id: number; key: string }>(
    `WITH RECURSIVE up(id) AS (
       SELECT parent_id FROM tickets WHERE id = $1 AND parent_id IS NOT NULL
       UNION
       SELECT t.parent_id FROM up JOIN tickets t ON t.id = up.id
       WHERE t.parent_id IS NOT NULL AND up.id <> $2
     )
     SELECT id, (SELECT key FROM tickets WHERE tickets.id = up.id) AS key FROM up`,
    [parent.id, ticket.id],
  );
  if (rows.at(-1)?.id !== ticket.id) return;
  throw parentCycle(
    ticket.key,
    parent.key,
    rows.map((row) => row.key),
  );
}

/** Create a ticket with its project's next key; see TicketsStore.createTicket. */
async function createWithin(tx: Query, input: NewTicket, by: string | undefined) {
  // The parent before the bump (an unknown project is still the first thing to say); a failure after the
  // bump rolls it back. The bump's row lock orders the creates of one project: keys are contiguous.
  const parentId =
    input.parent === undefined || input.parent === null
      ? null
      : await parentOfNew(tx, input.parent, input.project);
  const bumped = (
    await tx.query<{ id: number; key: string; number: number }>(
      'UPDATE projects SET last_number = last_number + 1 WHERE key = $1 RETURNING id, key, last_number AS number',
      [input.project.toUpperCase()],
    )
  ).rows[0];
  if (!bumped) throw await projectNotFound(tx, input.project);
  const priority = input.priority ?? 'none';
  const at = nowIso();
  const key = `${bumped.key}-${bumped.number}`;
  const row = (
    await tx.query<TicketDbRow>(
      `INSERT INTO tickets (project_id, number, key, title, description, type, status, priority, priority_rank,
         assignee, reporter, labels, estimate, due_date, parent_id, resolution, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'backlog', $7, $8, $9, $10, $11, $12, $13, $14, NULL, 1, $15, $15)
       RETURNING ${TICKET_COLUMNS}`,
      [
        bumped.id,
        bumped.number,
        key,
        input.title,
        input.description ?? '',
        input.type ?? 'task',
        priority,
        priorityRank(priority),
        input.assignee ?? null,
        input.reporter === undefined ? (by ?? null) : input.reporter,
        JSON.stringify(normaliseLabels(input.labels ?? [])),
        // Stored as SQLite stores it: -0 as 0.
        input.estimate === undefined || input.estimate === null ? null : input.estimate + 0,
        input.due_date ?? null,
        parentId,
        at,
      ],
    )
  ).rows[0] as TicketDbRow;
  await tx.query(
    `INSERT INTO history (ticket_id, field, new_value, changed_by, changed_at) VALUES ($1, 'created', $2, $3, $4)`,
    [row.id, row.key, by ?? null, at],
  );
  const ticket = await toTicket(tx, row);
  return { ticket, changed: createdUris(ticket) };
}

/** Change some fields of a ticket, inside the caller's write; see TicketsStore.updateTicket. */
async function updateWithin(tx: Query, input: TicketPatch, by: string | undefined) {
  if (input.parent !== undefined && input.parent !== null) await lockParents(tx);
  const row = await getTicketRow(tx, input.key, true);
  checkVersion(row, input.expected_version);
  const changes = patchChanges({ ...row, labels: parseLabels(row.labels) }, input);
  const parents: string[] = [];
  let parentId: number | null | undefined;
  if (input.parent !== undefined) {
    const oldParent =
      row.parent_id === null
        ? null
        : ((await tx.query<{ key: string }>('SELECT key FROM tickets WHERE id = $1', [row.parent_id])).rows[0]
            ?.key ?? null);
    const parent = input.parent === null ? null : await findParent(tx, input.parent);
    if ((parent?.id ?? null) !== row.parent_id) {
      if (parent) await checkNoCycle(tx, row, parent);
      changes.push({ field: 'parent', old: oldParent, new: parent?.key ?? null });
      parentId = parent?.id ?? null;
      for (const key of [oldParent, parent?.key]) if (key) parents.push(key);
    }
  }
  if (changes.length === 0) return { ticket: await toTicket(tx, row), fields: [], changed: [] };
  const at = nowIso();
  const values: unknown[] = [row.id, at];
  const assignments: string[] = [];
  const set = (column: string, value: unknown) => {
    values.push(value);
    assignments.push(`${column} = $${values.length}`);
  };
  for (const change of changes) {
    if (change.field === 'labels') set('labels', JSON.stringify(change.new));
    else if (change.field !== 'parent') set(COLUMNS[change.field as PlainField], change.new);
    if (change.field === 'priority') set('priority_rank', priorityRank(change.new as Priority));
  }
  if (parentId !== undefined) set('parent_id', parentId);
  const updated = (
    await tx.query<TicketDbRow>(
      `UPDATE tickets SET ${[...assignments, 'version = version + 1', 'updated_at = $2'].join(', ')}
       WHERE id = $1 RETURNING ${TICKET_COLUMNS}`,
      values,
    )
  ).rows[0] as TicketDbRow;
  await recordHistory(tx, row.id, changes, by, at);
  const fields = changes.map((change) => change.field);
  const shown = fields.includes('title') ? await shownOn(tx, row.key) : [];
  const changed = updatedUris(row.key, fields, parents, () => shown);
  return { ticket: await toTicket(tx, updated), fields, changed };
}

/** Move a ticket along the workflow, inside the caller's write; see TicketsStore.transitionTicket. */
async function transitionWithin(tx: Query, input: Transition, by: string | undefined) {
  const row = await getTicketRow(tx, input.key, true);
  checkVersion(row, input.expected_version);
  const { resolution, changes } = decideTransition(row, input);
  const at = nowIso();
  const result = (
    await tx.query<TransitionResult>(
      `UPDATE tickets SET status = $2, resolution = $3, version = version + 1, updated_at = $4 WHERE id = $1
       RETURNING key, status, resolution, version, updated_at`,
      [row.id, input.status, resolution, at],
    )
  ).rows[0] as TransitionResult;
  await recordHistory(tx, row.id, changes, by, at);
  if (input.comment !== undefined) await insertComment(tx, row.id, input.comment, by, at);
  // shownOn is asked before the URIs are made (it is a query): only when the status changes, as they use it.
  const blocking = opensOrCloses(row.status, input.status);
  const shown = row.status === input.status ? [] : await shownOn(tx, row.key, { blocking });
  const changed = transitionUris(
    { key: row.key, status: row.status, labelled: row.labels !== '[]' },
    input.status,
    () => shown,
  );
  return { result, changed };
}

/** One key of a bulk update, inside its savepoint (the SQLite store's applyOne, step for step). */
async function applyOne(tx: Query, item: BulkChange, by: string | undefined) {
  const row = await getTicketRow(tx, item.key, true);
  checkVersion(row, item.expected_version);
  const fields: string[] = [];
  const changed: string[] = [];

  const assignee =
    item.assignee === undefined || item.assignee === null ? item.assignee : resolvePerson(item.assignee, by);
  const labels = bulkLabels(parseLabels(row.labels), item);
  if (item.priority !== undefined || assignee !== undefined || labels !== undefined) {
    const update = await updateWithin(tx, { key: row.key, priority: item.priority, assignee, labels }, by);
    fields.push(...update.fields);
    changed.push(...update.changed);
  }

  if (item.duplicate_of !== undefined) {
    const link = await linkWithin(tx, { key: row.key, type: 'duplicates', target: item.duplicate_of }, by);
    if (link.created) fields.push('duplicates');
    changed.push(...link.changed);
  }

  const { status, resolution } = bulkStatus(row, item);
  // A ticket already where the change puts it is left so (unlike transition_ticket): a batch sent again
  // after some of its keys failed does not fail the keys that applied.
  const before = await getTicketRow(tx, row.key);
  const there = status === before.status && (resolution === undefined || resolution === before.resolution);
  if (status !== undefined && !there) {
    const moved = await transitionWithin(tx, { key: row.key, status, resolution }, by);
    if (moved.result.status !== before.status) fields.push('status');
    if (moved.result.resolution !== before.resolution) fields.push('resolution');
    changed.push(...moved.changed);
  }

  const version = (await getTicketRow(tx, row.key)).version;
  return { key: row.key, version, fields, changed };
}

export function ticketsPart(access: PgAccess): TicketsPart {
  return {
    createTicket: (input, by) => access.write((tx) => createWithin(tx, input, by)),

    updateTicket: (input, by) => access.write((tx) => updateWithin(tx, input, by)),

    transitionTicket: (input, by) => access.write((tx) => transitionWithin(tx, input, by)),

    /**
     * One transaction, each key in a savepoint of its own: a failing key takes back only its own partial
     * change, and other writers see the triage whole. The tickets it names are locked first, in id order
     * (after the link graph's lock when it links duplicates), so two bulk updates cannot deadlock.
     */
    bulkUpdate: async (items, by) => {
      checkKeysOnce(items);
      return access.write(async (tx) => {
        if (items.some((item) => item.duplicate_of !== undefined)) await lockLinkGraph(tx, 'duplicates');
        const keys = items.flatMap((item) => [
          normaliseKey(item.key),
          ...(item.duplicate_of === undefined ? [] : [normaliseKey(item.duplicate_of)]),
        ]);
        await tx.query('SELECT id FROM tickets WHERE key = ANY($1::text[]) ORDER BY id FOR UPDATE', [keys]);
        const changed = new Set<string>();
        const results: BulkResult[] = [];
        for (const item of items) {
          await tx.query('SAVEPOINT bulk_item');
          try {
            const done = await applyOne(tx, item, by);
            await tx.query('RELEASE SAVEPOINT bulk_item');
            for (const uri of done.changed) changed.add(uri);
            results.push({ key: done.key, ok: true, version: done.version, changed: done.fields });
          } catch (error) {
            await tx.query('ROLLBACK TO SAVEPOINT bulk_item');
            if (!isShipyardError(error)) throw error;
            results.push({ key: normaliseKey(item.key), ok: false, error: error.toJSON() });
          }
        }
        return { results, changed: [...changed] };
      });
    },

    deleteTicket: (input, by) =>
      access.write(async (tx) => {
        const row = await getTicketRow(tx, input.key, true);
        const children = (
          await tx.query<{ id: number; key: string }>(
            'SELECT id, key FROM tickets WHERE parent_id = $1 ORDER BY project_id, number',
            [row.id],
          )
        ).rows;
        const grouped = await linksOf(tx, row.id);
        const linked = linkedOf(grouped);
        if (!input.force) {
          checkRemovable(
            row.key,
            children.map((child) => child.key),
            linked,
          );
        }
        // Read before the row goes: the pages that show it (parent, linked tickets, projects it blocks).
        const changed = deleteUris(row.key, row.labels, await shownOn(tx, row.key, { blocking: true }));
        const at = nowIso();
        // Each linked ticket's history says the link went, from its side ("blocked_by SHIP-1").
        const ids = new Set<number>();
        for (const link of linked) {
          const other = await getTicketRow(tx, link.key);
          ids.add(other.id);
          await recordHistory(tx, other.id, [linkGone(link.type, row.key)], by, at);
        }
        if (ids.size > 0) {
          await tx.query('UPDATE tickets SET updated_at = $2 WHERE id = ANY($1::int[])', [[...ids], at]);
        }
        for (const child of children) {
          await tx.query(
            'UPDATE tickets SET parent_id = NULL, version = version + 1, updated_at = $2 WHERE id = $1',
            [child.id, at],
          );
          await recordHistory(tx, child.id, [{ field: 'parent', old: row.key, new: null }], by, at);
          changed.push(...ticketUris(child.key));
        }
        // Its comments, history and links go with it (ON DELETE CASCADE).
        await tx.query('DELETE FROM tickets WHERE id = $1', [row.id]);
        return {
          deleted: deletedTicket(row, children, linked.length),
          changed,
        };
      }),
  };
}
