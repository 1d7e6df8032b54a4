import { Conflict } from '@shipyard/core';
import { INVERSE, LINK_TYPES, type LinkType, type TicketLinks } from './links.js';
import { type Change, labelsUri, listOf, ticketUris } from './model.js';

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

/** A ticket's links as a delete names them: each type in LINK_TYPES order, with the other ticket's key. */
export const linkedOf = (grouped: TicketLinks): { type: LinkType; key: string }[] =>
  LINK_TYPES.flatMap((type) => grouped[type].map((ticket) => ({ type, key: ticket.key })));

/**
 * The pages a delete changes, read before the row goes: the ticket's own, the projects list, its project's
 * labels when it had any (`labels` is the stored JSON), and `shown`, the pages that show it (see shownOn).
 */
export const deleteUris = (key: string, labels: string, shown: readonly string[]): string[] => [
  ...ticketUris(key, { links: true }),
  'tickets://projects',
  ...(labels !== '[]' ? [labelsUri(key)] : []),
  ...shown,
];

/** The history entry of a linked ticket whose link to `key` went, from its side ("blocked_by SHIP-1"). */
export const linkGone = (type: LinkType, key: string): Change => ({
  field: 'link',
  old: `${INVERSE[type]} ${key}`,
  new: null,
});

/** A delete's answer: the children named are the first NAMED, in the order given. */
export const deletedTicket = (
  row: { key: string; title: string },
  children: readonly { key: string }[],
  links: number,
): DeletedTicket => ({
  key: row.key,
  title: row.title,
  children: children.slice(0, NAMED).map((child) => child.key),
  links,
});
