import { InvalidInput, NotFound } from '@shipyard/core';
import { type Change, type Status, ticketUris } from './model.js';

/** The five ways to name a link, from the side of the ticket it is read from. */
export const LINK_TYPES = ['blocks', 'blocked_by', 'duplicates', 'duplicated_by', 'relates'] as const;
export type LinkType = (typeof LINK_TYPES)[number];
/** The name of the same link seen from the other ticket. */
export const INVERSE: Record<LinkType, LinkType> = {
  blocks: 'blocked_by',
  blocked_by: 'blocks',
  duplicates: 'duplicated_by',
  duplicated_by: 'duplicates',
  relates: 'relates',
};

/** The other end of a link: enough to decide whether to open it. */
export interface LinkedTicket {
  key: string;
  title: string;
  status: Status;
}

export type TicketLinks = Record<LinkType, LinkedTicket[]>;

/** Links of each type a tool's answer lists, so a hub ticket cannot flood it (its page lists 50). */
export const LINKS_SHOWN = 20;

/** The non-empty types of `grouped`, each cut to its first `cap` links, each made by `shown`. */
export function shownLinks<T>(
  grouped: TicketLinks,
  shown: (ticket: LinkedTicket) => T,
  cap = LINKS_SHOWN,
): Partial<Record<LinkType, T[]>> {
  const out: Partial<Record<LinkType, T[]>> = {};
  for (const type of LINK_TYPES) {
    if (grouped[type].length > 0) out[type] = grouped[type].slice(0, cap).map(shown);
  }
  return out;
}

/** How many links `grouped` holds in all. */
export const countLinks = (grouped: TicketLinks) =>
  LINK_TYPES.reduce((n, type) => n + grouped[type].length, 0);

/** A link added or removed changes both tickets' pages, histories and links pages. */
export const bothEnds = (key: string, target: string) => [
  ...ticketUris(key, { links: true }),
  ...ticketUris(target, { links: true }),
];

/** The types a link is stored as: blocked_by and duplicated_by are rows of blocks and duplicates. */
export type StoredLinkType = 'blocks' | 'duplicates' | 'relates';

/** A link as stored, between ticket ids. */
export interface CanonicalLink {
  sourceId: number;
  type: StoredLinkType;
  targetId: number;
}

/** The stored row for "from <type> to": blocked_by/duplicated_by swap ends, relates puts the lower id first. */
export function canonical(from: { id: number }, type: LinkType, to: { id: number }): CanonicalLink {
  switch (type) {
    case 'blocks':
    case 'duplicates':
      return { sourceId: from.id, type, targetId: to.id };
    case 'blocked_by':
      return { sourceId: to.id, type: 'blocks', targetId: from.id };
    case 'duplicated_by':
      return { sourceId: to.id, type: 'duplicates', targetId: from.id };
    case 'relates':
      return { sourceId: Math.min(from.id, to.id), type: 'relates', targetId: Math.max(from.id, to.id) };
  }
}

/** A link or unlink of a ticket with itself. */
export const selfLink = (key: string, change: 'link' | 'unlink') =>
  new InvalidInput(
    change === 'link'
      ? `A ticket cannot be linked to itself (${key})`
      : `A ticket is never linked to itself (${key}), so there is no such link to remove`,
    { hint: 'Pass a different target key' },
  );

/** A blocks or duplicates link that would close a cycle, named by its keys (`chain`, elided with `…`). */
export const linkCycle = (
  key: string,
  type: LinkType,
  target: string,
  stored: StoredLinkType,
  chain: string[],
) =>
  new InvalidInput(`Linking ${key} ${type} ${target} would make a cycle: ${chain.join(` ${stored} `)}`, {
    hint: 'Remove one link of the cycle with unlink_tickets first, or link as relates',
  });

/** No link of `type` from `key` to `target`; `actual` are the types the two do have, as read from `key`. */
export const noSuchLink = (key: string, type: LinkType, target: string, actual: readonly LinkType[]) =>
  new NotFound(`${key} has no ${type} link to ${target}`, {
    hint:
      actual.length > 0
        ? `${actual.map((other) => `${key} ${other} ${target}`).join('; ')}: call unlink_tickets with ` +
          `type ${actual.join(' or ')}`
        : `${key} and ${target} are not linked; get_ticket with include links shows a ticket's links`,
  });

/**
 * A ticket's links grouped by how each reads from it (a blocks row to it is blocked_by), from rows in the
 * order the groups list them; `outgoing` tells a row whose source is the ticket.
 */
export function groupLinks<R extends { type: StoredLinkType; key: string; title: string; status: Status }>(
  rows: readonly R[],
  outgoing: (row: R) => boolean,
): TicketLinks {
  const grouped: TicketLinks = { blocks: [], blocked_by: [], duplicates: [], duplicated_by: [], relates: [] };
  for (const row of rows) {
    const direction: LinkType =
      row.type === 'relates'
        ? 'relates'
        : outgoing(row)
          ? row.type
          : row.type === 'blocks'
            ? 'blocked_by'
            : 'duplicated_by';
    grouped[direction].push({ key: row.key, title: row.title, status: row.status });
  }
  return grouped;
}

/** The `link` history entries of a link added or removed: one per ticket, each from its own side. */
export function linkEntries<T extends { key: string }>(
  from: T,
  type: LinkType,
  to: T,
  change: 'added' | 'removed',
): [T, Change][] {
  return (
    [
      [from, `${type} ${to.key}`],
      [to, `${INVERSE[type]} ${from.key}`],
    ] as const
  ).map(([ticket, value]) => [
    ticket,
    { field: 'link', ...(change === 'added' ? { old: null, new: value } : { old: value, new: null }) },
  ]);
}
