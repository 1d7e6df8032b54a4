import type { Priority, Status, TicketSummary, TicketType } from './model.js';

/** A search query may have at most this many words. */
export const MAX_QUERY_WORDS = 16;
/**
 * ... and at most this many prefixes (`word*`): each reads the hits of every word it starts, and short ones
 * start most words, which holds every other call for seconds on a large file.
 */
export const MAX_PREFIX_WORDS = 4;
/** A description in a list is cut to this many characters. */
export const LIST_DESCRIPTION_CHARS = 500;
export const SORTS = ['relevance', 'updated', 'created', 'priority', 'due'] as const;
export type Sort = (typeof SORTS)[number];

/** Fields a search can add to each summary. */
export const EXTRA_FIELDS = [
  'description',
  'estimate',
  'due_date',
  'parent',
  'reporter',
  'created_at',
] as const;
export type ExtraField = (typeof EXTRA_FIELDS)[number];

export const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO date (`2025-01-31`, midnight UTC) or datetime (`2025-01-31T09:30:00Z`, offset or none = UTC) as
 * the UTC timestamp format the tickets table stores, or undefined when the text is not one. As RFC 3339
 * allows, `t` and `z` may be lower case and a space may stand for the T; an offset may leave out its colon.
 */
export function parseInstant(text: string): string | undefined {
  const m = ISO_INSTANT.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return undefined;
  }
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const offset = zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(3, '0').slice(0, 3)}${offset}`);
  if (Number.isNaN(ms)) return undefined;
  // An offset can carry 9999-12-31 into year 10000, written +010000-…, which sorts before every stored time
  // (as -000001-… does, rightly): the ends of the years stored times have place them where they belong.
  const at = new Date(ms).toISOString();
  return at.startsWith('+')
    ? '9999-12-31T23:59:59.999Z'
    : at.startsWith('-')
      ? '0000-01-01T00:00:00.000Z'
      : at;
}

export interface SearchOptions {
  query?: string | undefined;
  project?: string | undefined;
  status?: readonly Status[] | undefined;
  priority?: readonly Priority[] | undefined;
  type?: TicketType | undefined;
  /** A user name, or null for unassigned tickets ("me" is resolved by the caller). */
  assignee?: string | null | undefined;
  label?: string | undefined;
  parent?: string | undefined;
  updated_since?: string | undefined;
  created_since?: string | undefined;
  /** Search archived projects too (a `project` filter searches its project, archived or not). */
  include_archived?: boolean | undefined;
  /** Due on or before / on or after this day (YYYY-MM-DD). */
  due_before?: string | undefined;
  due_after?: string | undefined;
  /** Open and due before today (UTC). */
  overdue?: boolean | undefined;
  sort?: Sort | undefined;
  fields?: readonly ExtraField[] | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A summary plus the requested extra fields (a mapped type, so it is assignable to a loose record). */
export type SearchItem = { [K in keyof TicketSummary]: TicketSummary[K] } & {
  description?: string;
  description_truncated?: boolean;
  reporter?: string | null;
  estimate?: number | null;
  due_date?: string | null;
  parent?: string | null;
  created_at?: string;
};

/** What is wrong with text parseInstant does not read: its shape, or a day or time that does not exist. */
export function instantProblem(text: string): string {
  return ISO_INSTANT.test(text.trim())
    ? 'must be a real calendar date (and time), e.g. 2025-01-31 or 2025-01-31T09:30:00Z'
    : 'must be an ISO date or datetime, e.g. 2025-01-31 or 2025-01-31T09:30:00Z';
}

/**
 * Characters of JSON a page of results fills at most (about 10,000 tokens): 100 ordinary tickets fit, but
 * not 100 of the longest titles and labels with descriptions.
 */
export const PAGE_CHARS = 40_000;

/** Words that say nothing about which ticket this is (English function words and ticket boilerplate). */
export const STOP_WORDS = new Set(
  `a about above after again all also am an and any are as at be been before being below between both but by
  can cannot could did do does doing don down during each few for from further had has have having he her here
  hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or
  other our out over own same she should so some such than that the their them then there these they this
  those through to too under until up very was we were what when where which while who whom why will with
  would you your yours
  add added adding fix fixed fixes fixing bug bugs issue issues problem problems please make need needs
  should want ticket support update updated doesn doesnt isn isnt won wont cant`.split(/\s+/),
);

/** A word folded for comparing: decomposed, marks removed, lower case (Café and cafe are one word). */
export const fold = (word: string) => word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** A text's words folded, for the similarity score. */
export const words = (text: string): string[] =>
  Array.from(fold(text).matchAll(/[\p{L}\p{N}]+/gu), (m) => m[0]);

/**
 * A text's words as written (marks kept), for the FTS query. Folding would not match the index: NFKD splits
 * Hangul syllables into jamo and が into か and a mark, which the index keeps whole; the index's tokenizer
 * does its own folding of the words it is given.
 */
export const rawWords = (text: string): string[] =>
  Array.from(text.toLowerCase().matchAll(/[\p{L}\p{N}\p{M}]+/gu), (m) => m[0]);

/**
 * A folded word that says something about a ticket: no stop word, and not a single character unless it is
 * a digit (`Phase 2 rollout` and `Phase 3 rollout` are different tickets; a lone letter is mostly noise,
 * the `e` and `g` of e.g.).
 */
export const isSignificant = (folded: string) =>
  ([...folded].length > 1 || /^\p{N}$/u.test(folded)) && !STOP_WORDS.has(folded);

/** Words that identify a ticket: no stop words, no single letters; all words when that leaves none. */
export function significantWords(text: string): string[] {
  const all = words(text);
  const kept = all.filter(isSignificant);
  return [...new Set(kept.length > 0 ? kept : all)];
}

/** The same choice of words as {@link significantWords}, as written, for the FTS query. */
export function queryWords(text: string): string[] {
  const all = rawWords(text);
  const kept = all.filter((w) => isSignificant(fold(w)));
  return [...new Set(kept.length > 0 ? kept : all)];
}

/** A light English stemmer for comparing titles: crashes/crashed/crashing -> crash, files -> fil(e). */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && /(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

export const stems = (text: string) => new Set(significantWords(text).map(stem));

/** How many members two sets have in common. */
export function shared(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let common = 0;
  for (const x of a) if (b.has(x)) common++;
  return common;
}

/** Jaccard index of two sets: |A∩B| / |A∪B|; 1 for the same words, 0 for none in common. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>, common = shared(a, b)): number {
  return a.size === 0 || b.size === 0 ? 0 : common / (a.size + b.size - common);
}

export interface SimilarOptions {
  title: string;
  description?: string | undefined;
  project?: string | undefined;
  include_closed?: boolean | undefined;
  limit?: number | undefined;
}

export interface SimilarItem {
  key: string;
  title: string;
  status: Status;
  score: number;
}

/** The most frequent significant words of a text as written, not in `skip` (ties: first seen). */
export function topWords(text: string, skip: ReadonlySet<string>, max: number): string[] {
  const counts = new Map<string, number>();
  for (const w of rawWords(text)) {
    const folded = fold(w);
    if ([...folded].length < 3 || STOP_WORDS.has(folded) || skip.has(w)) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, max)
    .map(([w]) => w);
}
