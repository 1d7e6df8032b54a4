import { Conflict } from '@shipyard/core';
import type { LinkType } from './links.js';
import { listOf } from './model.js';

/** Keys a refusal or an answer names, at most this many of each kind. */
export const NAMED = 20;

export interface DeletedTicket {
  key: string;
  title: string;
  /** The children that lost their parent (they stay, at the top level), the first 20. */
  children: string[];
  /** How many links went with the ticket. */
  links: number;
}

export const namedKeys = (keys: readonly string[], total: number) =>
  total > keys.length ? `${keys.join(', ')} and ${total - keys.length} more` : listOf(keys);

/**
 * A ticket with children or links is deleted only when forced: Conflict naming the first NAMED of each,
 * `children` by key and `linked` as read from the ticket.
 */
export function checkRemovable(
  key: string,
  children: readonly string[],
  linked: readonly { type: LinkType; key: string }[],
): void {
  if (children.length > 0 || linked.length > 0) {
    const parts = [
      children.length > 0
        ? `${children.length === 1 ? 'a child' : `${children.length} children`} (${namedKeys(
            children.slice(0, NAMED),
            children.length,
          )})`
        : '',
      linked.length > 0
        ? `${linked.length === 1 ? 'a link' : `${linked.length} links`} (${namedKeys(
            linked.slice(0, NAMED).map((link) => `${link.type} ${link.key}`),
            linked.length,
          )})`
        : '',
    ].filter(Boolean);
    throw new Conflict(`${key} has ${parts.join(' and ')}; nothing was deleted`, {
      hint:
        'Pass force: true to delete it anyway (its children stay, without a parent; its links go), or ' +
        'close it with transition_ticket to keep its record',
      details: {
        children: children.slice(0, NAMED),
        links: linked.slice(0, NAMED),
      },
    });
  }
}
