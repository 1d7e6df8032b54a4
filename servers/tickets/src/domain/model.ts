import { asShown, InvalidInput, NotFound, named, quoteText } from '@shipyard/core';
import type { ShipyardDatabase } from '@shipyard/db';
import { eq, inArray, sql } from 'drizzle-orm';
import { history, projects, type schema, tickets } from '../db/schema.js';

/** The server's drizzle database (`$client` is its better-sqlite3 connection). */
export type TicketsDb = ShipyardDatabase<typeof schema>['db'];
/** A drizzle database or the transaction handle inside db.transaction(). */
export type Tx = Pick<TicketsDb, 'select' | 'insert' | 'update' | 'delete' | 'all' | 'get' | 'run'>;

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

export type ProjectRow = typeof projects.$inferSelect;
export type TicketRow = typeof tickets.$inferSelect;

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
 * Run several reads in one read transaction, so they see one state of the database even while another
 * process commits (a count and the rows it counts, say).
 */
export const snapshot = <T>(db: TicketsDb, read: () => T): T => db.$client.transaction(read)();

/** Bound values as the list of an `IN (…)`, each once. */
export const sqlList = (values: readonly (string | number)[]) =>
  sql.join(
    [...new Set(values)].map((value) => sql`${value}`),
    sql`, `,
  );

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

/** The columns of a ticket row that a summary is made from (search rows select just these). */
export type SummaryRow = Pick<
  TicketRow,
  'key' | 'title' | 'type' | 'status' | 'priority' | 'assignee' | 'labels' | 'updatedAt'
>;

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

/** The key of a ticket by its row id, or null when there is none. */
export function keyOfId(db: Tx, id: number): string | null {
  return db.select({ key: tickets.key }).from(tickets).where(eq(tickets.id, id)).get()?.key ?? null;
}

export function toTicket(db: Tx, row: TicketRow): Ticket {
  const parent = row.parentId ? keyOfId(db, row.parentId) : null;
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

/** The calendar day, YYYY-MM-DD, on this machine's clock and time zone (where the user is). */
export function localDate(at = new Date()): string {
  return [at.getFullYear(), at.getMonth() + 1, at.getDate()]
    .map((part, i) => String(part).padStart(i === 0 ? 4 : 2, '0'))
    .join('-');
}

/**
 * A project's name as two spellings of it compare: as it looks (core's asShown: without the characters that
 * show nothing, such as zero-width spaces, soft hyphens and bidi controls, and each run of spaces one),
 * composed, in lower case.
 */
const nameKey = (name: string) => asShown(name).normalize('NFC').toLowerCase();

/** `a`, `a and b`, `a, b and c` (with `or` for a choice). */
export const listOf = (items: readonly string[], word = 'and') =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`;

/** The projects whose name is `text` in any case or spacing (see {@link nameKey}), in key order. */
export function projectsNamed(db: Tx, text: string): ProjectRow[] {
  const wanted = nameKey(text);
  if (!wanted) return [];
  return db
    .select()
    .from(projects)
    .orderBy(projects.key)
    .all()
    .filter((row) => nameKey(row.name) === wanted);
}

/**
 * No project has key `given` (as given, trimmed). A ticket key names its project; a project's name
 * (`Shipyard` for SHIP) is answered with its key, so a model passes that key rather than create a second
 * project; other text that cannot be a key says what a key looks like.
 */
export function projectNotFound(db: Tx, given: string): NotFound | InvalidInput {
  const text = given.trim();
  const shown = named(clip(text, 40));
  const upper = text.toUpperCase();
  if (TICKET_KEY.test(upper)) {
    return new InvalidInput(`"${shown}" is a ticket key; its project is ${projectOfKey(upper)}`, {
      hint: `Pass the project key, ${projectOfKey(upper)}`,
    });
  }
  const byName = projectsNamed(db, text);
  const [only] = byName;
  if (only && byName.length === 1) {
    return new NotFound(
      `No project with key "${shown}"; ${quoteText(only.name)} is the name of project ${only.key}`,
      {
        hint: `Pass the project key, ${only.key}`,
      },
    );
  }
  // Projects made before names were kept apart may share one.
  if (only) {
    const keys = byName.map((project) => project.key);
    return new NotFound(
      `No project with key "${shown}"; ${quoteText(only.name)} is the name of projects ${listOf(keys)}`,
      {
        hint: `Pass one of the project keys: ${keys.join(', ')}`,
      },
    );
  }
  if (!PROJECT_KEY.test(upper)) {
    return new InvalidInput(`No project with key "${shown}": a key is ${PROJECT_KEY_RULE}`, {
      hint: 'Call list_projects to see the project keys',
    });
  }
  return new NotFound(`No project with key "${shown}"`, {
    hint: 'Call list_projects to see the project keys, or create_project to add one',
  });
}

export function getProjectRow(db: Tx, key: string): ProjectRow {
  const normalised = key.trim().toUpperCase();
  const row = PROJECT_KEY.test(normalised) ? findProjectRow(db, normalised) : undefined;
  if (!row) throw projectNotFound(db, key);
  return row;
}

export function getTicketRow(db: Tx, key: string): TicketRow {
  const normalised = key.trim().toUpperCase();
  if (!TICKET_KEY.test(normalised)) throw notAKey(db, key, normalised);
  const row = findTicketRow(db, normalised);
  if (!row) throw noSuchTicket(db, normalised);
  return row;
}

/**
 * The ticket an argument names, its errors naming the argument (`` `target`: No ticket SHIP-9… ``), as they
 * must where a tool takes two keys, or a key among other arguments. `noneHint` answers what some write for no
 * ticket (`none`, `null`, `-` or a blank).
 */
export function ticketArgument(db: Tx, name: string, value: string, noneHint?: string): TicketRow {
  try {
    return getTicketRow(db, value);
  } catch (error) {
    if (!(error instanceof NotFound || error instanceof InvalidInput)) throw error;
    const none = noneHint !== undefined && /^\s*(?:none|null|-)?\s*$/i.test(value);
    const options = { hint: none ? noneHint : error.hint, details: error.details };
    const message = `\`${name}\`: ${error.message}`;
    throw error instanceof NotFound ? new NotFound(message, options) : new InvalidInput(message, options);
  }
}

/** The ticket with this exact key (upper case, trimmed), or undefined. */
export const findTicketRow = (db: Tx, key: string) =>
  db.select().from(tickets).where(eq(tickets.key, key)).get();
const findProjectRow = (db: Tx, key: string) => db.select().from(projects).where(eq(projects.key, key)).get();

/** A number alone (`42`, `#42`). */
const NUMBER_ONLY = /^#?\s*0*([1-9][0-9]{0,8})$/;
/**
 * A project-like start and a number at the end, with or without separators between (`SHIP1`, `SHIP 01`,
 * `SHIP–1` with a dash that is not a hyphen).
 */
const LOOSE_KEY = /^[A-Z][A-Z0-9]*[\s_.:#\p{Pd}]*[0-9]+$/u;
/** Keys written into a text, to tell a list of them from one written loosely. */
const KEY_IN_TEXT = /[A-Z][A-Z0-9]{1,9}\p{Pd}[0-9]+/gu;
/** The keys a number alone names, at most this many. */
const NUMBERED_SHOWN = 5;

/** The project key of a ticket key: SHIP of SHIP-42. */
export const projectOfKey = (key: string) => key.slice(0, key.lastIndexOf('-'));

/**
 * The keys a text written another way may mean, each split of its final number once: `SHIP21` may be SHIP-21
 * or SHIP2-1, `browse/SHIP-01` is SHIP-1. None for text with other words or numbers in it (`SHIP-1, SHIP-2`).
 */
function looseKeys(normalised: string): string[] {
  const text = (normalised.split('/').at(-1) ?? '').replace(/[^A-Z0-9]+$/, '');
  // A key is at most 20 characters; longer text is not one written loosely (and is not worth the regex).
  if (text.length > 40 || !LOOSE_KEY.test(text)) return [];
  const digits = /[0-9]+$/.exec(text)?.[0] ?? '';
  const keys = new Set<string>();
  for (let cut = text.length - digits.length; cut < text.length; cut++) {
    const project = text.slice(0, cut).replace(/[\s_.:#\p{Pd}]+$/u, '');
    const number = text.slice(cut).replace(/^0+/, '');
    const key = `${project}-${number}`;
    if (TICKET_KEY.test(key)) keys.add(key);
  }
  return [...keys];
}

/** Refuse text that is not a key, naming the existing tickets it most likely means when there are any. */
function notAKey(db: Tx, given: string, normalised: string): InvalidInput {
  const message = `"${named(clip(given, 40))}" is not a ticket key; keys look like SHIP-42`;
  const number = NUMBER_ONLY.exec(normalised)?.[1];
  if (number) {
    const keys = db
      .all<{ key: string }>(
        sql`SELECT t.key AS key FROM projects p JOIN tickets t ON t.key = p.key || '-' || ${number}
            ORDER BY p.key LIMIT ${NUMBERED_SHOWN + 1}`,
      )
      .map((row) => row.key);
    if (keys.length > 0) {
      const shown = keys.slice(0, NUMBERED_SHOWN).join(' or ');
      const more = keys.length > NUMBERED_SHOWN ? " or another project's" : '';
      return new InvalidInput(`${message}, with the project first: ${shown}${more}`, {
        hint: `Call again with ${keys.length === 1 ? 'that key' : 'the key of the project you mean'}`,
      });
    }
  }
  if ((normalised.match(KEY_IN_TEXT)?.length ?? 0) > 1) {
    return new InvalidInput(`${message}: it names more than one ticket`, {
      hint: 'Call once per ticket, with one key each time',
    });
  }
  if (PROJECT_KEY.test(normalised)) {
    const project = findProjectRow(db, normalised);
    if (project) {
      return new InvalidInput(`${message}: ${normalised} is a project key`, {
        hint:
          project.lastNumber === 0
            ? `${normalised} has no tickets yet`
            : `A ticket key adds its number (${normalised}-1 to ${normalised}-${project.lastNumber}); call search_tickets with project ${normalised} to find it`,
      });
    }
  }
  const candidates = looseKeys(normalised);
  const meant = candidates.length
    ? db
        .select({ key: tickets.key, title: tickets.title })
        .from(tickets)
        .where(inArray(tickets.key, candidates))
        .orderBy(tickets.key)
        .all()
    : [];
  if (meant.length > 0) {
    const titled = meant.map((ticket) => `${ticket.key} (${quoteText(clip(ticket.title, 60))})`);
    return new InvalidInput(`${message}; did you mean ${titled.join(' or ')}?`, {
      hint: meant.length === 1 ? `Call again with key ${meant[0]?.key}` : 'Call again with the key you mean',
    });
  }
  return new InvalidInput(message, {
    hint: 'Pass a key as shown by search_tickets or get_ticket, e.g. SHIP-42',
  });
}

/** NotFound for a well-formed key, saying whether its project exists and how far its keys go. */
function noSuchTicket(db: Tx, key: string): NotFound {
  const projectKey = projectOfKey(key);
  const project = findProjectRow(db, projectKey);
  if (!project) {
    return new NotFound(`No ticket ${key}: there is no project ${projectKey}`, {
      hint: 'Call list_projects to see the project keys',
    });
  }
  const upTo =
    project.lastNumber === 0
      ? `${projectKey} has no tickets yet`
      : `${projectKey}'s keys go from ${projectKey}-1 to ${projectKey}-${project.lastNumber}`;
  return new NotFound(`No ticket ${key}: ${upTo}`, { hint: 'Call search_tickets to find the key' });
}

export interface Change {
  field: string;
  old: unknown;
  new: unknown;
}

const asText = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);

/** Record field changes of one ticket (call inside the transaction that made them). */
export function recordHistory(
  db: Tx,
  ticketId: number,
  changes: readonly Change[],
  by: string | undefined,
  at: string,
) {
  if (changes.length === 0) return;
  db.insert(history)
    .values(
      changes.map((change) => ({
        ticketId,
        field: change.field,
        oldValue: asText(change.old),
        newValue: asText(change.new),
        changedBy: by ?? null,
        changedAt: at,
      })),
    )
    .run();
}

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

/**
 * URIs of other resources that show this ticket's title and status: its parent's (children) and its linked
 * tickets' pages and links pages, and with `blocking` the projects of the tickets it blocks (their blocked
 * lists). For notifications after a change of title or status; bounded, as a ticket can have many links.
 */
export function shownOn(db: Tx, key: string, { blocking = false } = {}): string[] {
  // Each part has its own bound, so a ticket with hundreds of links still names its parent and the projects
  // it blocks (one bound over the union would cut those first: they sort last).
  const blocked = sql`UNION SELECT * FROM (SELECT DISTINCT 'tickets://projects/' || p.key FROM me
    JOIN links l ON l.source_id = me.id AND l.type = 'blocks'
    JOIN tickets t ON t.id = l.target_id JOIN projects p ON p.id = t.project_id LIMIT 100)`;
  const rows = db.all<{ uri: string }>(sql`
    WITH me(id, parent_id) AS (SELECT id, parent_id FROM tickets WHERE key = ${key}),
      -- A linked ticket shows this one on its page and on its links page (CROSS JOIN keeps each ticket's two
      -- together under the bound).
      pages(part) AS (VALUES (''), ('/links'))
    SELECT 'tickets://' || t.key AS uri FROM me JOIN tickets t ON t.id = me.parent_id
    UNION SELECT * FROM (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.source_id = me.id
      JOIN tickets t ON t.id = l.target_id CROSS JOIN pages page LIMIT 500)
    UNION SELECT * FROM (SELECT 'tickets://' || t.key || page.part FROM me JOIN links l ON l.target_id = me.id
      JOIN tickets t ON t.id = l.source_id CROSS JOIN pages page LIMIT 500)
    ${blocking ? blocked : sql``}`);
  return rows.map((row) => row.uri);
}
