import { isShipyardError } from '@shipyard/core';
import {
  type BulkChange,
  type BulkResult,
  bulkLabels,
  bulkStatus,
  checkKeysOnce,
} from '../../domain/bulk.js';
import { parseLabels } from '../../domain/model.js';
import { resolvePerson } from '../../domain/people.js';
import { checkVersion } from '../../domain/tickets.js';
import { linkTickets } from './links.js';
import { getTicketRow, type TicketsDb } from './model.js';
import { transitionTicket, updateTicket } from './tickets.js';

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
): { results: BulkResult[]; changed: string[] } {
  const resolveAssignee = (name: string) => resolvePerson(name, user);
  checkKeysOnce(items);
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
  const labels = bulkLabels(parseLabels(row.labels), item);
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

  const { status, resolution } = bulkStatus(row, item);
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
