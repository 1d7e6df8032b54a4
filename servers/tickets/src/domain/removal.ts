import { Conflict } from '@shipyard/core';
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
 * Refuse to delete a ticket with children or links (unless forced), naming the first NAMED of each;
 * undefined when it has neither. `children` are keys in key order, `linked` its links as read from it.
 */
export function deleteRefused(
  key: string,
  children: readonly string[],
  linked: readonly { type: string; key: string }[],
): Conflict | undefined {
  if (children.length === 0 && linked.length === 0) return undefined;
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
  return new Conflict(`${key} has ${parts.join(' and ')}; nothing was deleted`, {
    hint:
      'Pass force: true to delete it anyway (its children stay, without a parent; its links go), or ' +
      'close it with transition_ticket to keep its record',
    details: {
      children: children.slice(0, NAMED),
      links: linked.slice(0, NAMED),
    },
  });
}
