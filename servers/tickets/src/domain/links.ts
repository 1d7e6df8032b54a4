import { type Status, ticketUris } from './model.js';

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
