import { badCursor, InvalidInput, quoteText, type SortKey } from '@shipyard/core';
import {
  head,
  type Priority,
  type Status,
  type SummaryRow,
  type TicketSummary,
  type TicketType,
  toSummary,
} from './model.js';

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

/** A candidate with its title's stemmed words, computed once. */
export const withTitleStems = <T extends { title: string }>(row: T) =>
  Object.assign(row, { stems: stems(row.title) });

/**
 * Of a query's hits (best first), the SIMILAR_CANDIDATES whose titles share the most stemmed words with
 * `title`, ties in hit order: among many tickets holding all the words, bm25 would put those with short
 * descriptions first, and a long report of the same title last.
 */
export function closestTitles<T extends { title: string }>(
  title: string,
  hits: T[],
): (T & { stems: Set<string> })[] {
  const given = stems(title);
  return hits
    .map((row, rank) => {
      const hit = withTitleStems(row);
      return { row: hit, rank, score: jaccard(given, hit.stems) };
    })
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .slice(0, SIMILAR_CANDIDATES)
    .map(({ row }) => row);
}

/**
 * The candidates scored as likely duplicates of a new ticket (options.title and description), those at or
 * above SIMILAR_THRESHOLD, best first, at most options.limit (1 to 20, default 5). A candidate's score is
 * the Jaccard index of its stemmed title words with the given title's, raised a little by description
 * overlap, or, when the two descriptions (the candidate's first 5,000 characters) share MIN_SHARED_WORDS
 * words or more, by the Jaccard index of their words times SAME_DESCRIPTION if that is higher.
 */
export function similarItems(
  options: SimilarOptions,
  candidates: readonly {
    key: string;
    title: string;
    status: Status;
    stems: Set<string>;
    description?: string | undefined;
  }[],
): SimilarItem[] {
  const limit = Math.min(Math.max(options.limit ?? 5, 1), 20);
  const title = stems(options.title);
  const descriptionText = (options.description ?? '').slice(0, 5_000);
  const description = descriptionText.trim() ? stems(descriptionText) : undefined;
  const sameTitle = words(options.title).join(' ');
  const scored = candidates.map((row) => {
    const rowTitle = row.stems;
    let score = jaccard(title, rowTitle);
    if (description) {
      const rowDescription = stems(row.description ?? '');
      // Description overlap can lift a differently worded title, never lower a matching one; a description
      // with enough of the same words makes a likely duplicate on its own.
      score += (1 - score) * 0.3 * jaccard(description, new Set([...rowTitle, ...rowDescription]));
      const common = shared(description, rowDescription);
      if (common >= MIN_SHARED_WORDS)
        score = Math.max(score, SAME_DESCRIPTION * jaccard(description, rowDescription, common));
    }
    // Of equal scores, a title with the same words in the same order (the likeliest original) comes first.
    const exact = words(row.title).join(' ') === sameTitle;
    return { item: { key: row.key, title: row.title, status: row.status, score }, exact };
  });
  // The threshold applies to the exact score (0.296 is below 0.3); only the output is rounded.
  return scored
    .filter(({ item }) => item.score >= SIMILAR_THRESHOLD)
    .sort((a, b) => b.item.score - a.item.score || Number(b.exact) - Number(a.exact))
    .slice(0, limit)
    .map(({ item }) => Object.assign(item, { score: Math.round(item.score * 100) / 100 }));
}

/** An empty answer says what to do next: nothing like it, so the new ticket is no duplicate. */
export const noSimilar = (options: SimilarOptions, project: string | undefined) =>
  `No similar ${options.include_closed ? '' : 'open '}tickets${project ? ` in ${project}` : ''}: ` +
  `create_ticket adds this one${options.include_closed ? '' : ' (include_closed also compares done and cancelled ones)'}`;

/** Most title words used in the OR query, and description words added to them. */
export const MAX_TITLE_WORDS = 12;
export const MAX_DESCRIPTION_WORDS = 4;
/** Candidates of each query scored per call (of the title's query: those whose titles share most words). */
export const SIMILAR_CANDIDATES = 30;
/** Matches below this score are left out. */
export const SIMILAR_THRESHOLD = 0.3;
/** The score of a ticket whose description has the same words as the one given, whatever its title. */
export const SAME_DESCRIPTION = 0.9;
/**
 * Significant words two descriptions must share before their likeness counts on its own: boilerplate such as
 * "See attached screenshot" or "TBD" is the same in unrelated tickets.
 */
export const MIN_SHARED_WORDS = 6;

/** What an empty search says to do next: make a project, a ticket, or widen the search. */
export function emptySearchHint(state: {
  anyProject: boolean;
  anyTicket: boolean;
  project?: string | undefined;
}) {
  if (!state.anyProject)
    return 'No projects yet: create_project makes one, then create_ticket adds its tickets';
  if (!state.anyTicket) {
    return `No tickets${state.project ? ` in ${state.project}` : ''} yet: create_ticket adds one`;
  }
  return 'Nothing matches: drop a filter or a word to widen the search, or create_ticket for new work';
}

/** A label or name as spellings of it compare: decomposed, letters and digits only, lower case. */
export const spelling = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .toLowerCase();

/**
 * The values in use (`used`, each with how many tickets have it) spelt like `wanted` (`needs_review` for
 * `needs review`, `CHLOÉ` for `Chloé`), most used first, five at most, as a note lists them.
 */
export function spelledLike(wanted: string, used: readonly { value: string; n: number }[]): string[] {
  const key = spelling(wanted);
  return used
    .filter((row) => spelling(row.value) === key)
    .toSorted((a, b) => b.n - a.n)
    .slice(0, 5)
    .map((row) => `${quoteText(row.value)} (${row.n})`);
}

/** The labels and names in use like a label or assignee filter that no ticket has (see spelledLike). */
export interface NearMisses {
  label?: string[];
  assignee?: string[];
}

/** For a search that found nothing, the note naming the near misses of its filters; undefined for none. */
export function nearMissNote(
  label: string | undefined,
  assignee: string | null | undefined,
  near: NearMisses,
): string | undefined {
  const notes: string[] = [];
  if (label && near.label?.length) {
    notes.push(
      `no ticket has the label ${quoteText(label)}; labels in use like it: ${near.label.join(', ')}`,
    );
  }
  if (assignee && near.assignee?.length) {
    notes.push(
      `no ticket is assigned to ${quoteText(assignee)}; names in use like it: ${near.assignee.join(', ')}`,
    );
  }
  return notes.length ? `Found nothing: ${notes.join('; ')}` : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The rules of a search's answer, the same on either engine

/**
 * Words as a person counts them: letters and digits with their combining marks. A Hindi or Thai word is one
 * word here, though its vowel signs split it into several tokens, as the index's tokenizer splits it too.
 */
const WRITTEN_WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * Text that shows nothing but `*`: blanks, control and format characters (a zero-width space, a BOM), and
 * marks with nothing to mark (a lone variation selector).
 */
const BLANK = /^[\s*\p{Cc}\p{Cf}\p{M}]*$/u;

/**
 * Refuse a query whose words (as the engine's index splits them, each once) are not a search: text with no
 * word in it (`🚀`, `!!`) that is not blank (a listing by the filters), more than MAX_PREFIX_WORDS prefixes,
 * or more than MAX_QUERY_WORDS words, rather than search it as something else than what was asked.
 */
export function checkQueryWords(query: string, words: readonly { prefix: boolean }[]): void {
  if (words.length === 0 && !BLANK.test(query)) {
    throw new InvalidInput('`query` has no word to search for: words are letters and digits', {
      hint: 'Search with words from the title or description, or leave out query to list tickets by the filters',
    });
  }
  if (words.filter((word) => word.prefix).length > MAX_PREFIX_WORDS) {
    throw new InvalidInput(
      `\`query\` has more than ${MAX_PREFIX_WORDS} words ending in *, and each is matched against every word it starts`,
      { hint: `Keep * for at most ${MAX_PREFIX_WORDS} words, and write the others whole` },
    );
  }
  if ((query.match(WRITTEN_WORD)?.length ?? 0) > MAX_QUERY_WORDS) {
    throw new InvalidInput(`\`query\` has more than ${MAX_QUERY_WORDS} words, and every word must match`, {
      hint: `Search with the ${MAX_QUERY_WORDS} or fewer words that best identify the tickets`,
    });
  }
}

/** An `updated_since` or `created_since` as a stored time; InvalidInput naming the argument otherwise. */
export function sinceOf(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const at = parseInstant(value);
  if (!at) throw new InvalidInput(`\`${name}\` ${instantProblem(value)}`);
  return at;
}

/** Today's date in UTC, as `overdue` compares due dates with it. */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

/**
 * A ticket's due date as the due index holds it: no date is `~`, which sorts after every date, so tickets
 * without one come last by due date and no due filter finds them.
 */
export const DUE_NONE = '~';

/** The types of a sort key's parts, as a cursor carries them (n: number, s: string). */
export const SORT_KEY_TYPES: Record<Exclude<Sort, 'relevance'>, string> = {
  updated: 'sn',
  created: 'sn',
  priority: 'nsn',
  due: 'sn',
};

/**
 * The cursor's sort key when it fits the sort (the cursor is bound to the query, so only a forged one fails).
 * A relevance key is (score, id), with the state of the index its score came from where the engine has one.
 */
export function afterKey(sort: Sort, after: SortKey | undefined): SortKey | undefined {
  if (after === undefined) return undefined;
  const types = sort === 'relevance' ? (after.length === 2 ? 'nn' : 'nns') : SORT_KEY_TYPES[sort];
  const fits =
    after.length === types.length &&
    after.every((value, i) => typeof value === (types[i] === 'n' ? 'number' : 'string'));
  if (!fits) throw badCursor();
  return after;
}

/** What a search's cursor is bound to, besides its words: the filters as resolved, and the sort. */
export interface SearchQuestion {
  project: number | undefined;
  archived: readonly number[];
  parent: number | undefined;
  label: string | undefined;
  updatedSince: string | undefined;
  createdSince: string | undefined;
  today: string | undefined;
  sort: Sort;
}

/**
 * The cursor belongs to exactly this question: same words (as the engine's index folds them), same filters
 * (resolved), same sort.
 */
export function searchQueryKey(words: unknown, options: SearchOptions, question: SearchQuestion): string {
  return JSON.stringify([
    words,
    question.project,
    [...new Set(options.status ?? [])].sort(),
    [...new Set(options.priority ?? [])].sort(),
    question.archived,
    options.type,
    // Names compare without regard to ASCII case (COLLATE NOCASE): `Ana` asks what `ana` does. Nobody
    // (null) is a filter, unlike no filter (undefined), which JSON would write alike.
    options.assignee === null
      ? { nobody: true }
      : options.assignee?.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()),
    question.label,
    question.parent,
    question.updatedSince,
    question.createdSince,
    options.due_before,
    options.due_after,
    // Overdue is bound to its day: a cursor kept past midnight (UTC) asks for a search again.
    question.today,
    question.sort,
  ]);
}

/** A search row: the summary columns plus the requested extra fields' columns. */
export type SearchRow = SummaryRow & {
  description?: string;
  /** Whether the description is longer than LIST_DESCRIPTION_CHARS (1 or true: engines differ). */
  description_truncated?: number | boolean;
  reporter?: string | null;
  estimate?: number | null;
  due_date?: string | null;
  parent?: string | null;
  created_at?: string;
};

/**
 * At least as many characters as a result's JSON has, and its comma: its text twice (stored text has no
 * control characters, so an escape takes two), and 1,000 for the other fields (names of up to 100
 * characters, dates, keys, the JSON's names and punctuation).
 */
const charsAtMost = (row: SearchRow) =>
  2 * (row.title.length + row.labels.length + (row.description?.length ?? 0) + (row.assignee?.length ?? 0)) +
  2 * (row.reporter?.length ?? 0) +
  1_000;

function toItem(row: SearchRow, fields: ReadonlySet<ExtraField>): SearchItem {
  const item: SearchItem = toSummary(row);
  for (const field of fields) {
    if (field === 'description') {
      item.description = head(row.description ?? '', LIST_DESCRIPTION_CHARS);
      item.description_truncated = row.description_truncated === 1 || row.description_truncated === true;
    } else if (field === 'created_at') item.created_at = row.created_at ?? row.updatedAt;
    else if (field === 'estimate') item.estimate = row.estimate ?? null;
    else item[field] = row[field] ?? null;
  }
  return item;
}

/**
 * The items of a page: at most `limit` of the rows, stopping early once they fill PAGE_CHARS of JSON (the
 * cursor goes on from the last one shown).
 */
export function pageItems(
  rows: readonly SearchRow[],
  limit: number,
  fields: ReadonlySet<ExtraField>,
): SearchItem[] {
  // Most pages are far under it, which a bound tells without making any JSON.
  const wanted = rows.slice(0, limit);
  const fits = wanted.reduce((sum, row) => sum + charsAtMost(row), 1) <= PAGE_CHARS;
  const items: SearchItem[] = [];
  let chars = 1; // the list's brackets, and a comma or the closing bracket after each item
  for (const row of wanted) {
    const item = toItem(row, fields);
    if (!fits) {
      chars += JSON.stringify(item).length + 1;
      if (items.length > 0 && chars > PAGE_CHARS) break;
    }
    items.push(item);
  }
  return items;
}

// ---------------------------------------------------------------------------------------------------------
// What a duplicate check searches with, the same on either engine

/** Best title hits whose titles are compared word by word, for the SIMILAR_CANDIDATES closest. */
export const SIMILAR_TITLE_HITS = 300;
/** The words a duplicate check searches with (see findSimilarTickets on either engine). */
export interface SimilarQuery {
  /** The title's significant words as written, for an OR query over titles. */
  titleWords: string[];
  /** The description's most frequent words not in the title, added to the title's in a second query. */
  descriptionWords: string[];
  /** Words every close description has (when the description has enough), for a query over descriptions. */
  sameDescriptionWords: string[];
  /** The description's stems, when one was given. */
  description: Set<string> | undefined;
}

export function similarQuery(options: SimilarOptions): SimilarQuery {
  const titleWords = queryWords(options.title).slice(0, MAX_TITLE_WORDS);
  const descriptionText = (options.description ?? '').slice(0, 5_000);
  const description = descriptionText.trim() ? stems(descriptionText) : undefined;
  return {
    titleWords,
    descriptionWords: topWords(descriptionText, new Set(titleWords), MAX_DESCRIPTION_WORDS),
    sameDescriptionWords:
      description && description.size >= MIN_SHARED_WORDS
        ? topWords(descriptionText, new Set(), MAX_DESCRIPTION_WORDS)
        : [],
    description,
  };
}

/** Nothing to compare (`!!!`): said, as search_tickets says it, so an empty list is not read as no duplicate. */
export const NO_TITLE_WORD = 'The title has no word to compare: words are letters and digits';

/** Word endings porter removes or rewrites, with their plurals and the compounds its steps cut in turn. */
const ENDINGS = [
  ...['', 's', 'es', 'ies', 'ed', 'ing', 'ings', 'ly', 'er', 'ers', 'est', 'ier', 'iest', 'iness', 'y'],
  ...['ment', 'ments', 'ness', 'ful', 'fully', 'fulness', 'less', 'able', 'ible', 'ably', 'al', 'ally'],
  ...['ance', 'ence', 'ant', 'ent', 'ency', 'ancy', 'ism', 'ist', 'ists', 'ity', 'ities', 'ive', 'ives'],
  ...['iveness', 'ize', 'izes', 'ized', 'izing', 'ise', 'ate', 'ates', 'ated', 'ating', 'ation', 'ations'],
  ...['ational', 'ator', 'ators', 'ization', 'izations', 'alization', 'ous', 'ously', 'ousness', 'ic'],
  ...['ical', 'ically', 'icity', 'icate', 'ative', 'alize', 'alism', 'ality', 'bility', 'ibility', 'ion'],
  ...['ions', 'ure'],
];

/** Shortest stem a prefix is cut to: porter leaves two letters at least (dying: dy). */
const MIN_STEM = 2;

/**
 * Words that start like the prefix `word` and whose stems may be shorter than it (integrat: integration,
 * stored as integr): `word` cut where an ending may start, followed by that ending, in ENDINGS order.
 * `length` counts a cut's letters as the store's engine does.
 */
export function stemCandidates(word: string, length: (base: string) => number): string[] {
  const words = new Set<string>();
  for (const ending of ENDINGS) {
    // Cut where the ending may start: the prefix ends with the ending's first `cut` letters.
    for (let cut = 0; cut < Math.max(1, ending.length); cut++) {
      if (cut > 0 && !word.endsWith(ending.slice(0, cut))) continue;
      const base = word.slice(0, word.length - cut);
      if (length(base) >= MIN_STEM) words.add(base + ending);
    }
  }
  return [...words];
}
