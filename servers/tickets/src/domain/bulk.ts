import { type ErrorCode, InvalidInput, isShipyardError } from '@shipyard/core';
import { linkTickets } from './links.js';
import {
  getTicketRow,
  normaliseLabels,
  OPEN_STATUSES,
  type Priority,
  parseLabels,
  type Status,
  type TicketsDb,
} from './model.js';
import { checkVersion, transitionTicket, updateTicket } from './tickets.js';

/** Keys one bulk update takes at most. */
export const MAX_BULK_KEYS = 100;

/** The resolution a ticket closed as a duplicate gets, unless the change names another. */
export const DUPLICATE_RESOLUTION = 'duplicate';

/** One key's change in a bulk update. */
export interface BulkChange {
  key: string;
  expected_version?: number | undefined;
  status?: Status | undefined;
  resolution?: string | undefined;
  priority?: Priority | undefined;
  /** A name, "me" or "none", as the tools take it: resolved per key, so a refused name fails that key only. */
  assignee?: string | null | undefined;
  add_labels?: readonly string[] | undefined;
  remove_labels?: readonly string[] | undefined;
  /** Link the ticket as a duplicate of this key; an open ticket is also cancelled (resolution duplicate). */
  duplicate_of?: string | undefined;
}

/** A type, not an interface, so it is assignable to the tool's loose output (an index signature). */
export type BulkResult = {
  key: string;
  ok: boolean;
  version?: number;
  /** What changed, in order: fields, `duplicates` (the link), status, resolution. Empty for a no-op. */
  changed?: string[];
  error?: { code: ErrorCode; message: string; hint?: string; details?: Record<string, unknown> };
};

const isOpen = (status: Status) => (OPEN_STATUSES as readonly string[]).includes(status);

/**
 * Apply each change to its key, each checked on its own: a key that fails (unknown, a stale
 * expected_version, a refused transition or name) is reported with its error and changes nothing, and the
 * others apply. All run in one IMMEDIATE transaction, each key in a savepoint of its own: the triage is one
 * commit that other processes see whole, no other write comes between a key's check and its write, and a
 * failing key's savepoint takes back only its own partial change (its fields, before a refused status).
 */
export function bulkUpdate(
  db: TicketsDb,
  items: readonly BulkChange[],
  user: string | undefined,
  resolveAssignee: (name: string) => string | null,
): { results: BulkResult[]; changed: string[] } {
  const keys = items.map((item) => item.key.trim().toUpperCase());
  const repeated = [...new Set(keys.filter((key, i) => keys.indexOf(key) !== i))];
  if (repeated.length > 0) {
    throw new InvalidInput(`Each key may come once in a bulk update; repeated: ${repeated.join(', ')}`, {
      hint: 'Merge the changes of each key into one item and call again; nothing was changed',
    });
  }
  const changed = new Set<string>();
  const results = db.transaction(
    () =>
      items.map((item): BulkResult => {
        try {
          // A nested transaction is a savepoint: a key that throws takes back its own writes only.
          const done = db.transaction(() => applyOne(db, item, user, resolveAssignee));
          for (const uri of done.changed) changed.add(uri);
          return { key: done.key, ok: true, version: done.version, changed: done.fields };
        } catch (error) {
          if (!isShipyardError(error)) throw error;
          return { key: item.key.trim().toUpperCase(), ok: false, error: error.toJSON() };
        }
      }),
    { behavior: 'immediate' },
  );
  return { results, changed: [...changed] };
}

function applyOne(
  db: TicketsDb,
  item: BulkChange,
  user: string | undefined,
  resolveAssignee: (name: string) => string | null,
) {
  const row = getTicketRow(db, item.key);
  checkVersion(row, item.expected_version);
  const fields: string[] = [];
  const changed: string[] = [];

  const assignee =
    item.assignee === undefined || item.assignee === null ? item.assignee : resolveAssignee(item.assignee);
  let labels: string[] | undefined;
  if (item.add_labels || item.remove_labels) {
    const removed = new Set(normaliseLabels(item.remove_labels ?? []));
    const kept = parseLabels(row.labels).filter((label) => !removed.has(label));
    labels = normaliseLabels([...kept, ...(item.add_labels ?? [])]);
  }
  if (item.priority !== undefined || assignee !== undefined || labels !== undefined) {
    const update = updateTicket(db, { key: row.key, priority: item.priority, assignee, labels }, user);
    fields.push(...update.fields);
    changed.push(...update.changed);
  }

  if (item.duplicate_of !== undefined) {
    const link = linkTickets(db, { key: row.key, type: 'duplicates', target: item.duplicate_of }, user);
    if (link.created) fields.push('duplicates');
    changed.push(...link.changed);
  }

  // A duplicate still open is closed as one; a closed ticket given only a resolution keeps its status.
  const closing = item.duplicate_of !== undefined && item.status === undefined && isOpen(row.status);
  const status =
    item.status ??
    (closing ? 'cancelled' : item.resolution !== undefined && !isOpen(row.status) ? row.status : undefined);
  if (status === undefined && item.resolution !== undefined) {
    throw new InvalidInput(`A resolution applies only to a closed ticket, and ${row.key} is ${row.status}`, {
      hint: 'Pass status done or cancelled with it, or drop resolution',
    });
  }
  const resolution = item.resolution ?? (closing ? DUPLICATE_RESOLUTION : undefined);
  // A ticket already where the change puts it is left so (unlike transition_ticket): a batch sent again
  // after some of its keys failed does not fail the keys that applied.
  const before = getTicketRow(db, row.key);
  const there = status === before.status && (resolution === undefined || resolution === before.resolution);
  if (status !== undefined && !there) {
    const moved = transitionTicket(db, { key: row.key, status, resolution }, user);
    if (moved.result.status !== before.status) fields.push('status');
    if (moved.result.resolution !== before.resolution) fields.push('resolution');
    changed.push(...moved.changed);
  }

  return { key: row.key, version: getTicketRow(db, row.key).version, fields, changed };
}
