import type { ErrorCode } from '@shipyard/core';
import { InvalidInput } from '@shipyard/core';
import { normaliseKey } from './keys.js';
import { normaliseLabels, OPEN_STATUSES, type Priority, type Status } from './model.js';

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

export const isOpen = (status: Status) => (OPEN_STATUSES as readonly string[]).includes(status);

/** InvalidInput when a key (as stored: trimmed, upper case) comes more than once: nothing is changed. */
export function checkKeysOnce(items: readonly { key: string }[]): void {
  const keys = items.map((item) => normaliseKey(item.key));
  const repeated = [...new Set(keys.filter((key, i) => keys.indexOf(key) !== i))];
  if (repeated.length > 0) {
    throw new InvalidInput(`Each key may come once in a bulk update; repeated: ${repeated.join(', ')}`, {
      hint: 'Merge the changes of each key into one item and call again; nothing was changed',
    });
  }
}

/** A ticket's labels after a change's add_labels and remove_labels; undefined when it names neither. */
export function bulkLabels(current: readonly string[], item: BulkChange): string[] | undefined {
  if (!item.add_labels && !item.remove_labels) return undefined;
  const removed = new Set(normaliseLabels(item.remove_labels ?? []));
  const kept = current.filter((label) => !removed.has(label));
  return normaliseLabels([...kept, ...(item.add_labels ?? [])]);
}

/**
 * The status and resolution a change moves a ticket to (undefined: none). A duplicate still open is closed
 * as one; a closed ticket given only a resolution keeps its status; a resolution on an open ticket without a
 * status to close it is refused.
 */
export function bulkStatus(
  row: { key: string; status: Status },
  item: BulkChange,
): { status: Status | undefined; resolution: string | undefined } {
  const closing = item.duplicate_of !== undefined && item.status === undefined && isOpen(row.status);
  const status =
    item.status ??
    (closing ? 'cancelled' : item.resolution !== undefined && !isOpen(row.status) ? row.status : undefined);
  if (status === undefined && item.resolution !== undefined) {
    throw new InvalidInput(`A resolution applies only to a closed ticket, and ${row.key} is ${row.status}`, {
      hint: 'Pass status done or cancelled with it, or drop resolution',
    });
  }
  return { status, resolution: item.resolution ?? (closing ? DUPLICATE_RESOLUTION : undefined) };
}
