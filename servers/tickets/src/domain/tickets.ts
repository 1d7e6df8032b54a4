import { Conflict, InvalidInput } from '@shipyard/core';
import { type Comment, fitComments } from './comments.js';
import { countLinks, shownLinks, type TicketLinks } from './links.js';
import {
  type Change,
  clip,
  labelsUri,
  normaliseLabels,
  opensOrCloses,
  type Priority,
  type Status,
  type Ticket,
  type TicketType,
  ticketUris,
} from './model.js';
import type { TicketDetailsData } from './pages.js';

/** How many of the latest comments and history entries get_ticket returns. */
export const COMMENTS_SHOWN = 20;
export const HISTORY_SHOWN = 50;
/**
 * Bounds on get_ticket's text besides the description, so one answer cannot flood a context window: the
 * newest comments are whole while their bodies add up to COMMENT_CHARS_SHOWN, older ones are cut to
 * CLIPPED_CHARS, and so is every history value, as in the history resource. A cut text ends with
 * `… (N characters)`.
 */
export const COMMENT_CHARS_SHOWN = 20_000;
export const CLIPPED_CHARS = 500;
/**
 * History values are cut to CLIPPED_CHARS while the newest entries' values add up to HISTORY_CHARS_SHOWN;
 * older ones to SHORT_CHARS, so that many changes of a long description stay short.
 */
export const HISTORY_CHARS_SHOWN = 10_000;
export const SHORT_CHARS = 80;

/** History entries (oldest first) with their values cut to fit {@link HISTORY_CHARS_SHOWN}, newest first. */
export function fitHistory<T extends { old: string | null; new: string | null }>(entries: readonly T[]): T[] {
  let left = HISTORY_CHARS_SHOWN;
  return entries
    .toReversed()
    .map((entry) => {
      const cut = (text: string | null, max: number) => (text === null ? null : clip(text, max));
      const full = { old: cut(entry.old, CLIPPED_CHARS), new: cut(entry.new, CLIPPED_CHARS) };
      left -= (full.old?.length ?? 0) + (full.new?.length ?? 0);
      const values =
        left >= 0 ? full : { old: cut(entry.old, SHORT_CHARS), new: cut(entry.new, SHORT_CHARS) };
      return Object.assign({}, entry, values);
    })
    .reverse();
}

export const INCLUDES = ['comments', 'links', 'history'] as const;
export type Include = (typeof INCLUDES)[number];

export interface HistoryEntry {
  field: string;
  old: string | null;
  new: string | null;
  by: string | null;
  at: string;
}

export interface TicketDetails extends Ticket {
  comments_total: number;
  history_total: number;
  comments?: Comment[];
  /** Keyed by how each link reads from this ticket (blocks, blocked_by…); empty relations left out. */
  links?: Partial<TicketLinks>;
  /** All the ticket's links, of which `links` lists up to LINKS_SHOWN a type. */
  links_total?: number;
  history?: HistoryEntry[];
}

/** Throw Conflict when the caller's expected_version is not the ticket's current version. */
export function checkVersion(row: { key: string; version: number }, expected: number | undefined): void {
  if (expected === undefined || expected === row.version) return;
  if (expected < 1) {
    throw new InvalidInput(`expected_version ${expected} is no version: versions start at 1`, {
      hint: `Call get_ticket for ${row.key} to see its version (now ${row.version})`,
    });
  }
  const why =
    expected > row.version ? `version ${expected} does not exist yet` : 'it changed since you read it';
  throw new Conflict(
    `${row.key} is at version ${row.version}, not ${expected}: ${why}. Nothing was changed`,
    {
      hint: `Call get_ticket for ${row.key} to see the current values, then retry with expected_version ${row.version}`,
      details: { current_version: row.version },
    },
  );
}

/**
 * get_ticket's answer from what the store read: the ticket with its counts, its comments fitted to
 * COMMENT_CHARS_SHOWN, its links LINKS_SHOWN a type with their total, its history values clipped.
 */
export function ticketDetails(data: TicketDetailsData): TicketDetails {
  const details: TicketDetails = Object.assign(data.ticket, {
    comments_total: data.comments_total,
    history_total: data.history_total,
  });
  if (data.comments) details.comments = fitComments(data.comments, COMMENT_CHARS_SHOWN, CLIPPED_CHARS);
  if (data.links) {
    details.links = shownLinks(data.links, (ticket) => ticket);
    details.links_total = countLinks(data.links);
  }
  if (data.history) details.history = fitHistory(data.history);
  return details;
}

export interface TicketPatch {
  key: string;
  expected_version?: number | undefined;
  title?: string | undefined;
  description?: string | undefined;
  type?: TicketType | undefined;
  priority?: Priority | undefined;
  assignee?: string | null | undefined;
  /** Replaces all labels. */
  labels?: readonly string[] | undefined;
  estimate?: number | null | undefined;
  due_date?: string | null | undefined;
  parent?: string | null | undefined;
}

/** The fields a patch sets as they are (title to due_date), in the order history records them. */
export const PLAIN_FIELDS = [
  'title',
  'description',
  'type',
  'priority',
  'assignee',
  'estimate',
  'due_date',
] as const;
export type PlainField = (typeof PLAIN_FIELDS)[number];

/**
 * What a patch changes of a ticket's plain fields and labels (normalised), as history records it: only what
 * differs, in PLAIN_FIELDS order, labels last. The parent is the store's to compare (it names a ticket).
 */
export function patchChanges(current: Pick<Ticket, PlainField | 'labels'>, input: TicketPatch): Change[] {
  const changes: Change[] = [];
  for (const field of PLAIN_FIELDS) {
    const value = input[field];
    if (value === undefined || value === current[field]) continue;
    changes.push({ field, old: current[field], new: value });
  }
  if (input.labels) {
    const next = normaliseLabels(input.labels);
    if (JSON.stringify(next) !== JSON.stringify(current.labels)) {
      changes.push({ field: 'labels', old: current.labels, new: next });
    }
  }
  return changes;
}

/**
 * The pages a new ticket changes: its own, its project's, the project list (its counts), its parent's and
 * its project's labels page when it shows there.
 */
export function createdUris(ticket: Pick<Ticket, 'key' | 'parent' | 'labels'>): string[] {
  const changed = [...ticketUris(ticket.key), 'tickets://projects'];
  if (ticket.parent) changed.push(`tickets://${ticket.parent}`);
  if (ticket.labels.length > 0) changed.push(labelsUri(ticket.key));
  return changed;
}

/**
 * The pages an update changes: its own, its old and new parent's (they list their children), its labels
 * page for new labels, and for a new title `shownOn`, the pages that show it (the store's shownOn).
 */
export function updatedUris(
  key: string,
  fields: readonly string[],
  parents: readonly string[],
  shownOn: () => string[],
): string[] {
  return [
    ...ticketUris(key),
    ...parents.map((parent) => `tickets://${parent}`),
    ...(fields.includes('labels') ? [labelsUri(key)] : []),
    ...(fields.includes('title') ? shownOn() : []),
  ];
}

/**
 * The pages a transition changes. Its parent and linked tickets show its status (`shownOn`, asked with
 * `blocking` when it opens or closes); opened or closed, it changes the open counts of the project list and
 * (of its labels) on its project's labels page, and the blocked lists of the projects it blocks. A closed
 * ticket's resolution corrected changes its own pages only.
 */
export function transitionUris(
  ticket: { key: string; status: Status; labelled: boolean },
  to: Status,
  shownOn: (options: { blocking: boolean }) => string[],
): string[] {
  const blocking = opensOrCloses(ticket.status, to);
  return [
    ...ticketUris(ticket.key),
    ...(blocking ? ['tickets://projects'] : []),
    ...(blocking && ticket.labelled ? [labelsUri(ticket.key)] : []),
    ...(ticket.status === to ? [] : shownOn({ blocking })),
  ];
}
