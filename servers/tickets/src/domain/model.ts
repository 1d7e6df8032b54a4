import { asShown } from '@shipyard/core';

export const TYPES = ['bug', 'feature', 'task', 'chore'] as const;
export const STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled'] as const;
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export const OPEN_STATUSES = ['backlog', 'todo', 'in_progress', 'in_review'] as const;
const isOpen = (status: string | null) => (OPEN_STATUSES as readonly (string | null)[]).includes(status);
/**
 * Whether a status change opens or closes a ticket (to or from done or cancelled): the only changes of
 * status that the project list's open counts and the blocked lists of the projects it blocks show.
 */
export const opensOrCloses = (from: string | null, to: string | null) => isOpen(from) !== isOpen(to);
export type TicketType = (typeof TYPES)[number];
export type Status = (typeof STATUSES)[number];
export type Priority = (typeof PRIORITIES)[number];

export const PROJECT_KEY = /^[A-Z][A-Z0-9]{1,9}$/;
/** What a project key looks like, in words. */
export const PROJECT_KEY_RULE = 'a letter, then 1-9 letters or digits, e.g. SHIP';
export const TICKET_KEY = /^[A-Z][A-Z0-9]{1,9}-[1-9][0-9]{0,8}$/;

/**
 * The workflow's order is backlog -> todo -> in_progress -> in_review -> done. An open status moves to any
 * later one or to cancelled in one call; done and cancelled reopen to todo or backlog.
 */
export const TRANSITIONS: Record<Status, readonly Status[]> = {
  backlog: ['todo', 'in_progress', 'in_review', 'done', 'cancelled'],
  todo: ['in_progress', 'in_review', 'done', 'cancelled'],
  in_progress: ['in_review', 'done', 'cancelled'],
  in_review: ['done', 'cancelled'],
  done: ['todo', 'backlog'],
  cancelled: ['todo', 'backlog'],
};

export const priorityRank = (priority: Priority): number => PRIORITIES.indexOf(priority);

/**
 * A label as stored and searched: as it looks (core's asShown: no bidi controls, such as the isolates some
 * apps put around pasted text, no zero-width spaces, one space between words), lower case, in Unicode's
 * composed form (NFC), so a label is what it looks like and is found as typed.
 */
export const normaliseLabel = (label: string) => asShown(label).toLowerCase().normalize('NFC');

/** Labels as stored: each normalised, de-duplicated, sorted. */
export function normaliseLabels(labels: readonly string[]): string[] {
  return [...new Set(labels.map(normaliseLabel).filter(Boolean))].sort();
}

export const parseLabels = (json: string): string[] => JSON.parse(json) as string[];

export const nowIso = () => new Date().toISOString();

/**
 * How many characters a text has, counted as the input limits count them (code points: an emoji is one,
 * though JavaScript's length says two).
 */
export const chars = (text: string) =>
  text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);

let graphemes: Intl.Segmenter | undefined;

/**
 * The start of the character as people see it (a grapheme) that `end` falls in: a cut there keeps a flag, a
 * skin tone or a family emoji whole, where a cut between code points leaves half of it. Looks 64 units
 * either side, more than any real cluster.
 */
function graphemeStart(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const from = Math.max(0, end - 64);
  let start = from;
  for (const { index } of graphemes.segment(text.slice(from, end + 64))) {
    if (from + index > end) break;
    start = from + index;
  }
  return start;
}

/** The first `max` characters (code points) of a text, or fewer so as not to end inside a grapheme. */
export const head = (text: string, max: number) => {
  if (text.length <= max) return text;
  let end = 0;
  for (let n = 0; n < max && end < text.length; n++) end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  return text.slice(0, graphemeStart(text, end));
};

/** A text cut to `max` characters, saying how long it was: `abc… (12000 characters)`. */
export const clip = (text: string, max: number) => {
  const length = text.length <= max ? text.length : chars(text);
  return length > max ? `${head(text, max)}… (${length} characters)` : text;
};

/** A long chain (of a cycle) named by its ends, so a message stays short: the first 6, `gap`, the last 5. */
export const elide = <T>(chain: readonly T[], gap: T): T[] =>
  chain.length > 12 ? [...chain.slice(0, 6), gap, ...chain.slice(-5)] : [...chain];

/** The fields a list shows: small enough for a context window. */
export interface TicketSummary {
  key: string;
  title: string;
  type: TicketType;
  status: Status;
  priority: Priority;
  assignee: string | null;
  labels: string[];
  updated_at: string;
}

export interface Ticket extends TicketSummary {
  project: string;
  description: string;
  reporter: string | null;
  estimate: number | null;
  due_date: string | null;
  parent: string | null;
  resolution: string | null;
  version: number;
  created_at: string;
}

/** The calendar day, YYYY-MM-DD, on this machine's clock and time zone (where the user is). */
export function localDate(at = new Date()): string {
  return [at.getFullYear(), at.getMonth() + 1, at.getDate()]
    .map((part, i) => String(part).padStart(i === 0 ? 4 : 2, '0'))
    .join('-');
}

/** `a`, `a and b`, `a, b and c` (with `or` for a choice). */
export const listOf = (items: readonly string[], word = 'and') =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`;

/** The project key of a ticket key: SHIP of SHIP-42. */
export const projectOfKey = (key: string) => key.slice(0, key.lastIndexOf('-'));

export interface Change {
  field: string;
  old: unknown;
  new: unknown;
}

/** A history value as stored: text as it is, other values as JSON, none as null. */
export const historyText = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * URIs of the resources a change to this ticket touches (its history only when the change writes one, its
 * links page only when its links changed).
 */
export function ticketUris(key: string, { history = true, links = false } = {}): string[] {
  const project = projectOfKey(key);
  return [
    `tickets://${key}`,
    ...(history ? [`tickets://${key}/history`] : []),
    ...(links ? [`tickets://${key}/links`] : []),
    `tickets://projects/${project}`,
  ];
}

/**
 * The labels page of a ticket's project, which a change of the ticket's labels changes, and opening or
 * closing it (the open counts).
 */
export const labelsUri = (key: string) => `tickets://projects/${projectOfKey(key)}/labels`;

/** The columns of a stored ticket that a summary is made from (labels as stored: a JSON array). */
export interface SummaryRow {
  key: string;
  title: string;
  type: TicketType;
  status: Status;
  priority: Priority;
  assignee: string | null;
  labels: string;
  updatedAt: string;
}

export function toSummary(row: SummaryRow): TicketSummary {
  return {
    key: row.key,
    title: row.title,
    type: row.type,
    status: row.status,
    priority: row.priority,
    assignee: row.assignee,
    labels: parseLabels(row.labels),
    updated_at: row.updatedAt,
  };
}

/** The columns of a stored ticket that a Ticket is made from (camel case, as the SQLite store's rows). */
export interface TicketRecord extends SummaryRow {
  description: string;
  reporter: string | null;
  estimate: number | null;
  dueDate: string | null;
  resolution: string | null;
  version: number;
  createdAt: string;
}

/** A ticket as the stores give it; `parent` is its parent's key, read by the store. */
export function toTicket(row: TicketRecord, parent: string | null): Ticket {
  // Object.assign, not a spread, which is slower on Node 20.
  return Object.assign(toSummary(row), {
    project: projectOfKey(row.key),
    description: row.description,
    reporter: row.reporter,
    estimate: row.estimate,
    due_date: row.dueDate,
    parent,
    resolution: row.resolution,
    version: row.version,
    created_at: row.createdAt,
  });
}
