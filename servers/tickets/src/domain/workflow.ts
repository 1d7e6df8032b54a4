import { InvalidInput } from '@shipyard/core';
import { type Change, elide, listOf, type Status, TRANSITIONS } from './model.js';

/** The resolution a ticket gets when closed without one. */
export const DEFAULT_RESOLUTION = { done: 'done', cancelled: "won't do" } as const;

export const isClosed = (status: Status): status is 'done' | 'cancelled' =>
  status === 'done' || status === 'cancelled';

/**
 * Statuses on the shortest path from one status to another (excluding `from`), or undefined. The path passes
 * through done only to end there: going back to an open status through done would record work as finished.
 */
export function pathBetween(from: Status, to: Status): Status[] | undefined {
  const previous = new Map<Status, Status>();
  const queue: Status[] = [from];
  while (queue.length > 0) {
    const at = queue.shift() as Status;
    if (at === to) break;
    for (const next of TRANSITIONS[at]) {
      if (next === from || previous.has(next) || (next === 'done' && to !== 'done')) continue;
      previous.set(next, at);
      queue.push(next);
    }
  }
  if (!previous.has(to)) return undefined;
  const path: Status[] = [to];
  for (let step = previous.get(to); step !== undefined && step !== from; step = previous.get(step))
    path.unshift(step);
  return path;
}

/**
 * How to get where a refused move wanted to go. A way back to an open status passes through cancelled, so
 * the hint first offers what a team usually means (a review that sent it back stays where it is, with a
 * comment saying why) rather than steering every such move into a cancellation.
 */
export function transitionHint(
  from: Status,
  to: Status,
  path: Status[] | undefined,
  allowed: readonly Status[],
): string {
  if (from === to && isClosed(from)) {
    return `Pass status ${orList(allowed)} to reopen it, or status ${from} with another resolution to change only that`;
  }
  if (from === to || !path) return `Pass status ${orList(allowed)}`;
  const steps = `in ${path.length} calls: ${[from, ...path].join(' -> ')}`;
  if (!path.slice(0, -1).includes('cancelled')) return `Move it ${steps}`;
  return (
    `There is no move back from ${from} to ${to}. To keep it ${from} and say why, call add_ticket_comment; ` +
    `to restart the work, move it ${steps}, with a resolution for the cancel that says why (e.g. "sent back")`
  );
}

export const orList = (items: readonly string[]) => listOf(items, 'or');

/**
 * What a transition of a ticket (as it is now) writes: its resolution and the history changes; the domain's
 * InvalidInput when the workflow refuses the move. A closed ticket given its own status with another
 * resolution takes that resolution (the only way to correct one without reopening the ticket); closing sets
 * the default resolution when none is given, reopening clears it.
 */
export function decideTransition(
  row: { key: string; status: Status; resolution: string | null },
  input: { status: Status; resolution?: string | undefined },
): { resolution: string | null; changes: Change[] } {
  const allowed = TRANSITIONS[row.status];
  // A closed ticket given its own status with another resolution: the resolution changes, the status stays.
  const resolving =
    input.status === row.status &&
    isClosed(row.status) &&
    input.resolution !== undefined &&
    input.resolution !== row.resolution;
  if (!resolving && (input.status === row.status || !allowed.includes(input.status))) {
    const path = pathBetween(row.status, input.status);
    const already = isClosed(row.status)
      ? `${row.key} is already ${row.status} (resolution ${row.resolution ?? 'none'})`
      : `${row.key} is already ${row.status}`;
    throw new InvalidInput(
      input.status === row.status
        ? `${already}; from ${row.status} it can move to ${orList(allowed)}`
        : `${row.key} cannot move from ${row.status} to ${input.status}; from ${row.status} it can move to ${orList(allowed)}`,
      {
        hint: transitionHint(row.status, input.status, path, allowed),
        details: { status: row.status, allowed },
      },
    );
  }
  if (input.resolution !== undefined && !isClosed(input.status)) {
    throw new InvalidInput(
      `A resolution applies only when moving to done or cancelled, not to ${input.status}`,
      {
        hint: 'Drop resolution, or move the ticket to done or cancelled',
      },
    );
  }
  const resolution = isClosed(input.status) ? (input.resolution ?? DEFAULT_RESOLUTION[input.status]) : null;
  const changes: Change[] = resolving ? [] : [{ field: 'status', old: row.status, new: input.status }];
  if (resolution !== row.resolution)
    changes.push({ field: 'resolution', old: row.resolution, new: resolution });
  return { resolution, changes };
}

/** A ticket named as its own parent. */
export const ownParent = (key: string) =>
  new InvalidInput(`${key} cannot be its own parent`, {
    hint: 'Pass another ticket as parent, or null to clear it',
  });

/**
 * Parents form a forest: a new parent whose ancestors (`ancestors`, nearest first, up to the ticket itself)
 * lead back to the ticket is refused, naming the chain (child -> parent) the change would close.
 */
export function parentCycle(key: string, parent: string, ancestors: readonly string[]): InvalidInput {
  const chain = [key, parent, ...ancestors];
  const last = chain.at(-2);
  return new InvalidInput(
    `Making ${parent} the parent of ${key} would create a cycle (child -> parent): ${elide(chain, '…').join(' -> ')}`,
    {
      hint: `Pick a parent outside ${key}'s subtree, or first clear the parent of ${last} with update_ticket`,
    },
  );
}
