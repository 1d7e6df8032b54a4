import { Conflict, InvalidInput } from '@shipyard/core';
import type { TicketDetailsData, TicketPatch } from '../store/rows.js';
import { type Comment, fitComments } from './comments.js';
import { countLinks, shownLinks, type TicketLinks } from './links.js';
import {
  type Change,
  clip,
  elide,
  normaliseLabels,
  type Priority,
  parseLabels,
  priorityRank,
  type Ticket,
  type TicketType,
} from './model.js';

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

/** The plain fields of an update: input name and the row's (camel case) name. */
const PLAIN_FIELDS = [
  ['title', 'title'],
  ['description', 'description'],
  ['type', 'type'],
  ['priority', 'priority'],
  ['assignee', 'assignee'],
  ['estimate', 'estimate'],
  ['due_date', 'dueDate'],
] as const;

/** The columns an update of a ticket's own fields writes (camel case, as the rows are). */
export interface FieldSet {
  title?: string;
  description?: string;
  type?: TicketType;
  priority?: Priority;
  priorityRank?: number;
  assignee?: string | null;
  estimate?: number | null;
  dueDate?: string | null;
  /** A JSON array, as stored. */
  labels?: string;
}

/**
 * What an update writes of a ticket's own fields (all but the parent): only those that differ, each a
 * history change, labels normalised and compared as a set, the priority's rank with the priority.
 */
export function fieldChanges(
  row: {
    title: string;
    description: string;
    type: TicketType;
    priority: Priority;
    assignee: string | null;
    estimate: number | null;
    dueDate: string | null;
    labels: string;
  },
  input: TicketPatch,
): { set: FieldSet; changes: Change[] } {
  const set: FieldSet = {};
  const changes: Change[] = [];
  for (const [field, column] of PLAIN_FIELDS) {
    const value = input[field];
    if (value === undefined || value === row[column]) continue;
    changes.push({ field, old: row[column], new: value });
    Object.assign(set, { [column]: value });
  }
  if (set.priority) set.priorityRank = priorityRank(set.priority);
  if (input.labels) {
    const current = parseLabels(row.labels);
    const next = normaliseLabels(input.labels);
    if (JSON.stringify(next) !== JSON.stringify(current)) {
      changes.push({ field: 'labels', old: current, new: next });
      set.labels = JSON.stringify(next);
    }
  }
  return { set, changes };
}

/** Refuse a ticket as its own parent. */
export const ownParent = (key: string) =>
  new InvalidInput(`${key} cannot be its own parent`, {
    hint: 'Pass another ticket as parent, or null to clear it',
  });

/**
 * Refuse a parent that is one of the ticket's descendants, naming the chain (child -> parent) it would
 * close: `ancestors` are the parent's ancestors' keys, nearest first, up to the ticket itself.
 */
export function parentCycle(ticket: string, parent: string, ancestors: readonly string[]): InvalidInput {
  const chain = [ticket, parent, ...ancestors];
  const last = chain.at(-2);
  return new InvalidInput(
    `Making ${parent} the parent of ${ticket} would create a cycle (child -> parent): ${elide(chain, '…').join(' -> ')}`,
    {
      hint: `Pick a parent outside ${ticket}'s subtree, or first clear the parent of ${last} with update_ticket`,
    },
  );
}
