/**
 * Ticket search (FTS5 + bm25 and indexed filters) and duplicate detection.
 *
 * User text never reaches FTS5 as syntax: it is split into the words the index would make of it (see
 * {@link tokenize}), each word becomes a quoted FTS5 string, and the strings are joined with AND. A `*` written directly
 * after a word (`migrat*`) makes that word a prefix term; nothing else is special. We do not add a prefix to
 * the last word on our own: callers are models that type whole words, the index is porter-stemmed (so
 * plurals and -ing forms already match) and an automatic prefix would turn `log` into login/logout/logging.
 * Because the index holds stems, a prefix is sent as the words that reach every stem a word starting with it
 * may be stored as (`integrat*` finds integration, stored as `integr`): see prefix.ts.
 */
import { type Page, pageWindow, type SortKey, toPage } from '@shipyard/core';
import { ftsAllOf as allWords, ftsAnyOf, ftsString } from '@shipyard/db';
import { type SQL, sql } from 'drizzle-orm';
import { normaliseLabel, OPEN_STATUSES, priorityRank, type Status, TICKET_KEY } from '../../domain/model.js';
import {
  afterKey,
  checkQueryWords,
  closestTitles,
  DUE_NONE,
  type ExtraField,
  emptySearchHint,
  LIST_DESCRIPTION_CHARS,
  type NearMisses,
  NO_TITLE_WORD,
  nearMissNote,
  noSimilar,
  pageItems,
  type SearchItem,
  type SearchOptions,
  type SearchRow,
  SIMILAR_CANDIDATES,
  SIMILAR_TITLE_HITS,
  type SimilarItem,
  type SimilarOptions,
  type Sort,
  searchQueryKey,
  similarItems,
  similarQuery,
  sinceOf,
  spelledLike,
  spelling,
  todayUtc,
  withTitleStems,
} from '../../domain/search.js';
import { indexNewTickets, leftOutNote } from './indexing.js';
import { findTicketRow, getProjectRow, snapshot, sqlList, type TicketsDb, ticketArgument } from './model.js';
import { indexWords, prefixTerms } from './prefix.js';

/**
 * bm25 weights of the FTS columns (title, description). FTS5's bm25 divides by the length of the whole
 * ticket, title and description together, so a light title weight let a long description (a pasted log or
 * stack trace) sink its own title match below a one-word mention elsewhere. At a thousand a title word
 * scores nearly the most bm25 gives a word whatever the description's length, so title matches rank by how
 * many query words they hold and how rare those are; description words still add as bm25 counts them.
 */
const BM25 = sql.raw('bm25(tickets_fts, 1000.0, 1.0)');
/** Above this many text hits (and no filter), a non-relevance sort walks its index instead of sorting hits. */
const DENSE_HITS = 2_000;

/**
 * Where a page of relevance results starts: after the last hit shown, by its (bm25 score, id). The score is
 * the one that hit has now, if its words still match (whatever the filters now say of it: triage moves
 * tickets out of the results), so the page goes on right after it. A hit whose words no longer match is
 * placed by the score it had: the others kept theirs if no text changed. Scores stay where no ticket entered
 * the index or had its text changed; where one did, tickets may swap places (see {@link INDEX_STATE}).
 */
export interface RelevanceKey {
  score: number;
  id: number;
}

/**
 * What bm25 weighs every hit by besides the hit itself: how many tickets the index holds, their length, and
 * how many of them hold each word. Tickets entering the index or a title or description edited change those
 * weights, and tickets can swap places, so a relevance page that starts after the last ticket shown may skip
 * or repeat one. A relevance cursor carries where the index was (`tickets_indexed.upto`, the last ticket it
 * holds) and the last change of a title or description (history_text_edits_idx), after the last hit's score
 * and id (as {@link RelevanceKey}), and a later page notes when either moved. Other changes (status,
 * priority, assignee) leave the index alone, and the scores with it.
 */
export const INDEX_STATE_SQL = `(SELECT upto FROM tickets_indexed) AS _indexed,
  (SELECT max(id) FROM history WHERE field IN ('title', 'description')) AS _edits`;
const INDEX_STATE = sql.raw(INDEX_STATE_SQL);

/** The index state a relevance page's scores come from, as its cursor carries it (`upto.edit`, base 36). */
const stateOf = (state: Pick<Row, '_indexed' | '_edits'> | undefined) =>
  `${(state?._indexed ?? 0).toString(36)}.${(state?._edits ?? 0).toString(36)}`;

/** The note of a relevance page whose scores moved since the page before it (see {@link INDEX_STATE}). */
const MOVED_NOTE =
  'Tickets were added to the index or had their text changed since the previous page, which moves relevance ' +
  'scores: this page may skip or repeat a ticket. Search again without cursor for an exact list, or sort by ' +
  'created, whose pages never skip';

/**
 * SQL pieces for "tickets matching `match` and `filters`"; only the rows of one page are read from tickets.
 * With filters, the hits that pass them are collected once into `hits` (id, bm25 score), which the page and
 * the count share. Each hit is checked by its id through the index of {@link seekIndex} where one holds the
 * filters' columns, which spares reading the (wide) row of a hit that fails them. Without filters, the page
 * and the count each read the index, and the count scores nothing. `scored: false` leaves out the bm25
 * score where the sort is another. Row ids bound for FTS5 are cast: it ignores a row id condition whose value
 * is not an INTEGER, and better-sqlite3 binds JavaScript numbers as REAL.
 */
function textHits(match: string, filters: readonly Filter[], scored: boolean) {
  const filter = allOf(filters);
  const seek = seekIndex(filters);
  const tickets = sql.raw(seek ? `tickets INDEXED BY ${seek}` : 'tickets');
  const check = filter
    ? sql` AND EXISTS (SELECT 1 FROM ${tickets} WHERE ${filter} AND tickets.id = tickets_fts.rowid)`
    : sql``;
  const matching = sql`SELECT tickets_fts.rowid AS id, ${scored ? BM25 : sql`NULL`} AS score
    FROM tickets_fts WHERE tickets_fts MATCH ${match}${check}`;
  const withHits = filter ? sql`WITH hits AS MATERIALIZED (${matching}) ` : sql``;
  const hits = filter ? sql`hits` : sql`(${matching})`;
  /**
   * The hits past `after` in relevance order: after its (score, id), by the score it has now if its words
   * still match, whatever the filters say of it now, else by the score it had (see {@link RelevanceKey}).
   */
  const past = (after: RelevanceKey) =>
    sql` WHERE (score, -id) > (coalesce((SELECT ${BM25} FROM tickets_fts WHERE tickets_fts MATCH ${match}
           AND tickets_fts.rowid = CAST(${after.id} AS INTEGER)), ${after.score}), ${-after.id})`;
  return {
    withHits,
    /** ids and bm25 scores of the best hits, best first (a subquery: `ranked.id`, `ranked.score`). */
    ranked: (page: SQL, after?: RelevanceKey) =>
      sql`(SELECT id, score FROM ${hits}${after ? past(after) : sql``} ORDER BY score, id DESC ${page}) AS ranked`,
    count: sql`${withHits}SELECT count(*) AS n FROM ${hits}`,
    /** The count as a scalar subquery inside a statement that starts with `withHits`. */
    total: sql`(SELECT count(*) FROM ${hits})`,
    /** The matching ids, for `tickets.id IN …`. */
    ids: sql`(SELECT id FROM ${hits})`,
  };
}

/** A filter on one column, and how its index behaves (see searchTickets). */
interface Filter {
  column:
    | 'project'
    | 'status'
    | 'priority'
    | 'type'
    | 'assignee'
    | 'label'
    | 'parent'
    | 'updated'
    | 'created'
    | 'due'
    | 'key'
    | 'archived';
  kind: 'narrow' | 'broad' | 'residual';
  cond: (hideIndex: boolean) => SQL;
}

/**
 * Indexes whose entries a text search can seek by (filter values, ticket id), for the filter columns they
 * need, narrowest first (indexes in schema.ts). Project alone and the date filters have none: their
 * indexes hold other columns or ranges before the id.
 */
const SEEK_INDEXES: [columns: Filter['column'][], index: string][] = [
  [['parent'], 'tickets_parent_idx'],
  [['assignee'], 'tickets_assignee_idx'],
  [['project', 'status'], 'tickets_project_status_idx'],
  [['priority'], 'tickets_priority_idx'],
  [['status'], 'tickets_status_idx'],
];

/** All the filters as one condition (indexes visible to the planner), or undefined when there are none. */
function allOf(filters: readonly Filter[]): SQL | undefined {
  return filters.length > 0
    ? sql.join(
        filters.map((f) => f.cond(false)),
        sql` AND `,
      )
    : undefined;
}

/** The index a text search with these filters checks its hits against, if any. */
function seekIndex(filters: readonly Filter[]): string | undefined {
  const has = (column: Filter['column']) => filters.some((f) => f.column === column);
  return SEEK_INDEXES.find(([columns]) => columns.every(has))?.[1];
}

export interface QueryToken {
  text: string;
  prefix: boolean;
}

/** A run of text between blanks and ASCII punctuation, and the `*` right after it if there is one. */
const CHUNK = /([^\s!-/:-@[-`{-~]+)(\*?)/gu;
/** A run whose words JavaScript finds as the index's tokenizer does: ASCII letters and digits only. */
const PLAIN = /^[A-Za-z0-9]+$/;

/**
 * Split user text into the words the index holds; a `*` right after a word (2+ characters) marks a prefix.
 * A run of ASCII letters and digits is a word in lower case, as the index folds it. Other runs are split and folded by the index's own
 * tokenizer (see prefix.ts): its idea of a letter differs from Unicode's today (it reads a character it does
 * not know as a letter, so `it🦀fast` is one word of the index) and it drops marks that have no composed
 * form (`Ẹ́kọ́` is eko), so splitting with JavaScript's idea of a letter missed words typed as they are
 * stored. A run the tokenizer finds no word in (only symbols) adds none.
 */
export function tokenize(db: TicketsDb, text: string): QueryToken[] {
  // Composed form first: a mark typed apart (i + U+0308, as some keyboards send ï) is one character. Control
  // characters separate words, as in stored text (which has none).
  const plain = text.normalize('NFC').replace(/\p{Cc}/gu, ' ');
  const runs = Array.from(plain.matchAll(CHUNK), (match) => ({
    text: match[1] ?? '',
    star: match[2] === '*',
  }));
  const words = runs.every((run) => PLAIN.test(run.text))
    ? runs.map((run) => [run.text.toLowerCase()])
    : indexWords(
        db,
        runs.map((run) => run.text),
      );
  return runs.flatMap((run, i) => {
    const found = words[i] ?? [];
    // A `*` makes a prefix of the run's last word.
    return found.map((word, j) => ({
      text: word,
      prefix: run.star && j === found.length - 1 && [...word].length >= 2,
    }));
  });
}

/**
 * A search's words. No query, a blank one (see {@link BLANK}) or `*` means none: a listing by the filters. Other text with no
 * word in it (`🚀`, `!!`) or with more than MAX_QUERY_WORDS words is refused, rather than searched as
 * something else than what was asked (everything, or the first words only).
 */
function queryTokens(db: TicketsDb, query: string): QueryToken[] {
  const all = tokenize(db, query);
  // The same word twice asks nothing more, and each prefix costs a scan of the index's terms.
  const seen = new Set<string>();
  const tokens = all.filter((token) => {
    const key = `${token.prefix ? '*' : ''}${token.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  checkQueryWords(query, tokens);
  return tokens;
}

/** One FTS5 string: `"tok"` with inner quotes doubled (tokens have none, but never trust that). */
const quote = (token: QueryToken) => ftsString(token.text, token.prefix);

/** One token as an FTS5 expression: its string, or for a prefix, any of its terms (see prefix.ts). */
function term(db: TicketsDb, token: QueryToken): string {
  if (!token.prefix) return quote(token);
  const terms = prefixTerms(db, token.text);
  return terms.length > 1 ? `(${terms.join(' OR ')})` : (terms[0] ?? quote(token));
}

/** The MATCH expression for words that must all appear, or undefined when there are none. */
export function ftsAllOf(db: TicketsDb, tokens: readonly QueryToken[]): string | undefined {
  // An explicit AND: FTS5 reads juxtaposition as AND only between plain strings, not (groups).
  return tokens.length > 0 ? tokens.map((token) => term(db, token)).join(' AND ') : undefined;
}

/** Whether a match has at least `n` hits, counting no further (a common word stops early). */
function hitsReach(db: TicketsDb, match: string, n: number): boolean {
  const counted = sql`SELECT count(*) AS n FROM (SELECT 1 FROM tickets_fts WHERE tickets_fts MATCH ${match} LIMIT ${n})`;
  return (db.get<{ n: number }>(counted)?.n ?? 0) >= n;
}

/** A search row: the summary columns, the sort key's columns, plus the requested extra fields' columns. */
type Row = SearchRow & {
  _id: number;
  _created: string;
  _rank: number;
  /** The due date, or DUE_NONE when there is none. */
  _due: string;
  /** The bm25 score, sorted by relevance. */
  _score?: number;
  /** Sorted by relevance: the last ticket the index holds and the last text edit (see INDEX_STATE). */
  _indexed?: number | null;
  _edits?: number | null;
};

/** Extra columns per requested field (constant SQL, no user text). */
const EXTRA_COLUMNS: Record<ExtraField, SQL> = {
  description: sql.raw(
    // One character more than is shown: where the cut falls inside a flag or an accented letter, toItem sees it.
    `substr(tickets.description, 1, ${LIST_DESCRIPTION_CHARS + 1}) AS description, ` +
      `length(tickets.description) > ${LIST_DESCRIPTION_CHARS} AS description_truncated`,
  ),
  reporter: sql.raw('tickets.reporter AS reporter'),
  estimate: sql.raw('tickets.estimate AS estimate'),
  due_date: sql.raw('tickets.due_date AS due_date'),
  parent: sql.raw('(SELECT p.key FROM tickets p WHERE p.id = tickets.parent_id) AS parent'),
  created_at: sql.raw('tickets.created_at AS created_at'),
};

/** A ticket's due date as its index holds it (schema.ts tickets_due_idx), none as DUE_NONE. */
const DUE_SQL = `ifnull(tickets.due_date, '${DUE_NONE}')`;
const due = (hide: boolean) => sql.raw(`${hide ? '+' : ''}${DUE_SQL}`);

const SUMMARY_COLUMNS = sql.raw(
  'tickets.key AS key, tickets.title AS title, tickets.type AS type, tickets.status AS status, ' +
    'tickets.priority AS priority, tickets.assignee AS assignee, tickets.labels AS labels, ' +
    'tickets.updated_at AS updatedAt, ' +
    // The sort key's other columns, for the next page's cursor (toItem leaves them out).
    `tickets.id AS _id, tickets.created_at AS _created, tickets.priority_rank AS _rank, ${DUE_SQL} AS _due`,
);

/** The index that yields each non-relevance order (names from schema.ts). */
const SORT_INDEX: Record<Exclude<Sort, 'relevance'>, string> = {
  updated: 'tickets_updated_idx',
  created: 'tickets_created_idx',
  priority: 'tickets_priority_idx',
  due: 'tickets_due_idx',
};

const ORDER: Record<Exclude<Sort, 'relevance'>, SQL> = {
  updated: sql.raw('tickets.updated_at DESC, tickets.id DESC'),
  created: sql.raw('tickets.created_at DESC, tickets.id DESC'),
  priority: sql.raw('tickets.priority_rank ASC, tickets.updated_at DESC, tickets.id DESC'),
  // The soonest first, then the oldest ticket; no due date last.
  due: sql.raw(`${DUE_SQL} ASC, tickets.id ASC`),
};

/**
 * Keyset paging: the sort key of a row, which the next page's cursor carries, and the condition for the rows
 * after it in the sort order (`hide` puts a unary + on the columns, so SQLite keeps the plan it has).
 * Pages that start after a key, not at an offset, neither skip nor repeat the other tickets when some change
 * in between (a triage that moves tickets out of a listing page by page, say); a ticket whose own sort key
 * changes is met where it now sorts (again, if it moved past the cursor; not at all, if it moved before it
 * unseen). `created` never changes, so paging by it sees every ticket once. Relevance pages after a
 * (score, id) key too, placed as {@link RelevanceKey} says.
 */
const KEYSET: Record<
  Exclude<Sort, 'relevance'>,
  { key: (row: Row) => SortKey; after: (key: SortKey, hide: boolean) => SQL }
> = {
  updated: {
    key: (row) => [row.updatedAt, row._id],
    after: ([at, id], h) => sql`(${plus(h)}tickets.updated_at, ${plus(h)}tickets.id) < (${at}, ${id})`,
  },
  created: {
    key: (row) => [row._created, row._id],
    after: ([at, id], h) => sql`(${plus(h)}tickets.created_at, ${plus(h)}tickets.id) < (${at}, ${id})`,
  },
  priority: {
    key: (row) => [row._rank, row.updatedAt, row._id],
    after: ([rank, at, id], h) =>
      sql`(${plus(h)}tickets.priority_rank > ${rank} OR (${plus(h)}tickets.priority_rank = ${rank}
            AND (${plus(h)}tickets.updated_at, ${plus(h)}tickets.id) < (${at}, ${id})))`,
  },
  due: {
    key: (row) => [row._due, row._id],
    after: ([at, id], h) => sql`(${due(h)}, ${plus(h)}tickets.id) > (${at}, ${id})`,
  },
};

/** A unary + before a column hides its index from SQLite's planner. */
const plus = (hide: boolean) => sql.raw(hide ? '+' : '');

/** The ids of the archived projects, whose tickets a search leaves out unless asked. */
const archivedProjectIds = (db: TicketsDb) =>
  db
    .all<{ id: number }>(sql`SELECT id FROM projects WHERE archived_at IS NOT NULL ORDER BY id`)
    .map((row) => row.id);

/**
 * Search tickets: FTS5 MATCH over title and description, whose row id is the ticket id, ranked by bm25
 * (title weighted), or a plain filtered listing when there are no words. Filters are indexed columns; the cursor
 * is bound to the words, filters and sort.
 */
export function searchTickets(db: TicketsDb, options: SearchOptions): Page<SearchItem> & { note?: string } {
  // A query that is exactly the key of a ticket (SHIP-5, ship-5) asks for that ticket; as words (ship, 5) it
  // would match every ticket holding both. A key that names no ticket is searched as words, as before.
  const asKey = (options.query ?? '').trim().toUpperCase();
  const keyed = TICKET_KEY.test(asKey) ? findTicketRow(db, asKey) : undefined;
  const tokens = keyed ? [] : queryTokens(db, options.query ?? '');
  const match = ftsAllOf(db, tokens);
  const sort: Sort =
    options.sort === 'relevance' && !match ? 'updated' : (options.sort ?? (match ? 'relevance' : 'updated'));

  // Each filter, and how its index behaves: `narrow` ones (a parent, a person) select few tickets, `broad`
  // ones (status, priority, project, dates) many, `residual` ones have no index. `cond(true)` hides the index
  // from SQLite's planner (a unary +), so a query can be made to drive from the index we choose.
  const filters: Filter[] = [];
  const add = (column: Filter['column'], kind: Filter['kind'], cond: (hide: boolean) => SQL) =>
    filters.push({ column, kind, cond });
  if (keyed) add('key', 'narrow', () => sql`tickets.id = ${keyed.id}`);
  const project = options.project === undefined ? undefined : getProjectRow(db, options.project);
  if (project) add('project', 'broad', (h) => sql`${plus(h)}tickets.project_id = ${project.id}`);
  const archived = project || options.include_archived ? [] : archivedProjectIds(db);
  if (archived.length > 0)
    add('archived', 'residual', () => sql`tickets.project_id NOT IN (${sqlList(archived)})`);
  if (options.status?.length)
    add('status', 'broad', (h) => sql`${plus(h)}tickets.status IN (${sqlList(options.status ?? [])})`);
  if (options.priority?.length) {
    const ranks = (options.priority ?? []).map(priorityRank);
    add('priority', 'broad', (h) => sql`${plus(h)}tickets.priority_rank IN (${sqlList(ranks)})`);
  }
  if (options.type) add('type', 'residual', () => sql`tickets.type = ${options.type}`);
  if (options.assignee === null) add('assignee', 'broad', (h) => sql`${plus(h)}tickets.assignee IS NULL`);
  else if (options.assignee !== undefined)
    // Any case (the index is COLLATE NOCASE): a name a model retypes as Ana still finds ana's tickets.
    add('assignee', 'narrow', (h) => sql`${plus(h)}tickets.assignee = ${options.assignee} COLLATE NOCASE`);
  const label = options.label === undefined ? undefined : normaliseLabel(options.label);
  if (label)
    add(
      'label',
      'residual',
      () => sql`EXISTS (SELECT 1 FROM json_each(tickets.labels) WHERE json_each.value = ${label})`,
    );
  const parent =
    options.parent === undefined
      ? undefined
      : ticketArgument(
          db,
          'parent',
          options.parent,
          'Pass a parent key such as SHIP-42; no filter finds the tickets without a parent',
        );
  if (parent) add('parent', 'narrow', (h) => sql`${plus(h)}tickets.parent_id = ${parent.id}`);
  const updatedSince = sinceOf(options.updated_since, 'updated_since');
  if (updatedSince) add('updated', 'broad', (h) => sql`${plus(h)}tickets.updated_at >= ${updatedSince}`);
  const createdSince = sinceOf(options.created_since, 'created_since');
  if (createdSince) add('created', 'broad', (h) => sql`${plus(h)}tickets.created_at >= ${createdSince}`);
  // Due dates are calendar days, compared as text; a ticket without one (DUE_NONE) is after every day.
  const { due_before: dueBefore, due_after: dueAfter } = options;
  if (dueBefore) add('due', 'broad', (h) => sql`${due(h)} <= ${dueBefore}`);
  if (dueAfter) add('due', 'broad', (h) => sql`${due(h)} >= ${dueAfter} AND ${due(h)} < ${DUE_NONE}`);
  const today = options.overdue ? todayUtc() : undefined;
  if (today) {
    add('due', 'broad', (h) => sql`${due(h)} < ${today}`);
    add('status', 'broad', (h) => sql`${plus(h)}tickets.status IN (${sqlList(OPEN_STATUSES)})`);
  }

  const queryKey = searchQueryKey(
    // Words as the index folds them, so `LOG*` is the question `log*` is.
    keyed?.id ?? tokens.map(quote),
    options,
    { project: project?.id, archived, parent: parent?.id, label, updatedSince, createdSince, today, sort },
  );
  const window = pageWindow(options, queryKey);
  const firstPage = !window.after && window.offset === 0;
  const after = afterKey(sort, window.after);
  const keyset = sort === 'relevance' ? undefined : KEYSET[sort];

  const fields = new Set(options.fields ?? []);
  const columns = [SUMMARY_COLUMNS, ...[...fields].map((field) => EXTRA_COLUMNS[field])];
  const select = sql.join(columns, sql`, `);
  const and = (conds: SQL[]) => sql.join(conds, sql` AND `);
  // One row more than the page, to know whether another page follows. Without a key (a cursor from before
  // keyset paging) the page is at an offset.
  const page = sql`LIMIT ${window.limit + 1} OFFSET ${after ? 0 : window.offset}`;
  const pageAfter = (hide: boolean, conds: SQL[] = []) =>
    after && keyset ? [...conds, keyset.after(after, hide)] : conds;
  let rows: (Row & { total?: number })[];
  let count: SQL;
  /** Sorted by relevance: the index state this page's scores come from (see INDEX_STATE). */
  let state: string | undefined;
  let known: number | undefined;
  /** New tickets left out of the search (another process held the write lock the index needed). */
  let left = 0;
  // Plans that count and fetch the page in separate statements read them in one snapshot: another
  // process committing between the two would make `total` and `next_cursor` disagree with the rows.
  // (A one-statement plan needs none, and skips its cost on the hottest search.)

  if (!match) {
    // SQLite has no statistics here: the plan follows from the kinds of filter.
    // With a narrow filter, drive from its index (the broad filters' indexes are hidden).
    const narrow = filters.some((f) => f.kind === 'narrow');
    const conds = filters.map((f) => f.cond(narrow && f.kind === 'broad'));
    const where = (list: SQL[]) => (list.length > 0 ? sql` WHERE ${and(list)}` : sql``);
    const whereSql = where(conds);
    // Two or more broad filters: count the intersection of their index-only id sets, without reading rows.
    const broad = filters.filter((f) => f.kind === 'broad');
    const residual = filters.filter((f) => f.kind === 'residual').map((f) => f.cond(false));
    if (!narrow && broad.length >= 2) {
      const ids = sql.join(
        broad.map((f) => sql`SELECT tickets.id FROM tickets WHERE ${f.cond(false)}`),
        sql` INTERSECT `,
      );
      count =
        residual.length === 0
          ? sql`SELECT count(*) AS n FROM (${ids})`
          : sql`SELECT count(*) AS n FROM tickets WHERE tickets.id IN (${ids}) AND ${and(residual)}`;
    } else {
      count = sql`SELECT count(*) AS n FROM tickets${whereSql}`;
    }
    const counted = count;
    [known, rows] = snapshot(db, () => {
      const total = db.get<{ n: number }>(counted)?.n ?? 0;
      const all =
        filters.length > 0 ? (db.get<{ n: number }>(sql`SELECT count(*) AS n FROM tickets`)?.n ?? 0) : total;
      // Many matches: walk the sort order's index and stop at a full page (reads about (offset + limit) *
      // all / total rows); few: fetch them through a filter index and sort them (reads `total` rows).
      const dense = total * total > (window.offset + window.limit) * all;
      const from = dense
        ? sql.raw(`tickets INDEXED BY ${SORT_INDEX[sort as keyof typeof SORT_INDEX]}`)
        : sql`tickets`;
      // Walking the sort index, its columns in the key condition let SQLite seek to the key.
      const pageWhere = where(pageAfter(!dense, conds));
      const order = ORDER[sort as keyof typeof ORDER];
      return [total, db.all<Row>(sql`SELECT ${select} FROM ${from}${pageWhere} ORDER BY ${order} ${page}`)];
    });
  } else {
    // The first page has the index take every ticket created before it, in any process. The pages after it
    // read the index as it is: the tickets its `note` says it left out, or created since, are not added to a
    // total whose cursor they may sort before (though another search may add them in between).
    if (firstPage) left = indexNewTickets(db);
    const text = textHits(match, filters, sort === 'relevance');
    count = text.count;
    if (sort === 'relevance') {
      const start = after && { score: after[0] as number, id: after[1] as number };
      // The index's state comes with the rows, from the snapshot of the scores (read alone when none).
      rows = db.all<Row>(
        sql`${text.withHits}SELECT ${select}, ranked.score AS _score, ${text.total} AS total, ${INDEX_STATE}
            FROM ${text.ranked(page, start)} JOIN tickets ON tickets.id = ranked.id
            ORDER BY ranked.score, ranked.id DESC`,
      );
      state = stateOf(rows[0] ?? db.get<Row>(sql`SELECT ${INDEX_STATE}`));
    } else {
      rows = snapshot(db, () => {
        // Many hits: walk the sort order's index and stop at a full page; few: look them up and sort them.
        const many = filters.length === 0 && (db.get<{ n: number }>(text.count)?.n ?? 0) > DENSE_HITS;
        const from = many ? sql.raw(`tickets INDEXED BY ${SORT_INDEX[sort]}`) : sql`tickets`;
        const conds = pageAfter(!many, [sql`tickets.id IN ${text.ids}`]);
        return db.all<Row>(
          sql`${text.withHits}SELECT ${select}, ${text.total} AS total
              FROM ${from} WHERE ${and(conds)} ORDER BY ${ORDER[sort]} ${page}`,
        );
      });
    }
  }
  // The total is known or came with the rows; with no rows it is 0 on a first page, else counted.
  const total = known ?? rows[0]?.total ?? (window.offset === 0 ? 0 : (db.get<{ n: number }>(count)?.n ?? 0));
  const items = pageItems(rows, window.limit, fields);
  const more = rows.length > items.length;
  const last = rows[items.length - 1];
  const key = last && (state === undefined ? keyset?.key(last) : [last._score ?? 0, last._id, state]);
  const found = toPage(items, total, window, queryKey, { after: key, more });
  const notes = [
    total === 0 && firstPage
      ? (nearMisses(db, label, options.assignee) ?? emptyHint(db, project))
      : undefined,
    left > 0 ? leftOutNote(left) : undefined,
    state !== undefined && after?.[2] !== undefined && after[2] !== state ? MOVED_NOTE : undefined,
  ].filter((note) => note !== undefined);
  return notes.length > 0 ? Object.assign(found, { note: notes.join('. ') }) : found;
}

/**
 * What to do about a search that found nothing: make the first project or ticket where there is none (in the
 * project asked for), else widen the search (tickets exist, so some word or filter left them out).
 */
function emptyHint(db: TicketsDb, project: { id: number; key: string } | undefined) {
  const anyProject = db.get(sql`SELECT 1 FROM projects LIMIT 1`) !== undefined;
  const scope = project ? sql` WHERE project_id = ${project.id}` : sql``;
  const anyTicket = anyProject && db.get(sql`SELECT 1 FROM tickets${scope} LIMIT 1`) !== undefined;
  return emptySearchHint({ anyProject, anyTicket, project: project?.key });
}

/**
 * For a search that found nothing, the labels or names in use that a label or assignee filter may have meant:
 * spelt otherwise (`needs_review` for `needs review`, `CHLOÉ` for `Chloé`), when the one given is in use
 * nowhere. Undefined when there is none.
 */
function nearMisses(db: TicketsDb, label: string | undefined, assignee: string | null | undefined) {
  /**
   * The values in use spelt like `wanted`, most used first, as a note lists them; none when it is in use
   * itself (ruled out by the other filters), which `used` asks first, of an index where there is one.
   */
  const lookalikes = (wanted: string, used: SQL, all: SQL) =>
    !spelling(wanted) || db.get(used) ? [] : spelledLike(wanted, db.all<{ value: string; n: number }>(all));
  const near: NearMisses = {};
  if (label) {
    near.label = lookalikes(
      label,
      sql`SELECT 1 FROM tickets, json_each(tickets.labels) AS j WHERE j.value = ${label} LIMIT 1`,
      sql`SELECT j.value AS value, count(*) AS n FROM tickets, json_each(tickets.labels) AS j GROUP BY j.value`,
    );
  }
  if (assignee) {
    near.assignee = lookalikes(
      assignee,
      sql`SELECT 1 FROM tickets WHERE assignee = ${assignee} COLLATE NOCASE LIMIT 1`,
      sql`SELECT assignee AS value, count(*) AS n FROM tickets WHERE assignee IS NOT NULL GROUP BY assignee`,
    );
  }
  return nearMissNote(label, assignee, near);
}

// ---------------------------------------------------------------------------------------------------------
// Similar tickets

/**
 * Best hits read before the project and status filters (all of them, ranked among those that pass, only when
 * there are more and the filters leave fewer than wanted): bm25 scores every hit either way, and joining a
 * thousand to their tickets is cheap.
 */
const SIMILAR_PREFILTER = 1_000;

/**
 * Likely duplicates of a ticket that is about to be created. The title's significant words form an OR query
 * over titles, and with a few frequent words of the description added, a second one; a description's most
 * frequent words, all of them, form a third over descriptions. The best bm25 candidates of each are scored
 * as domain similarItems says.
 */
export function findSimilarTickets(
  db: TicketsDb,
  options: SimilarOptions,
): { items: SimilarItem[]; note?: string } {
  const project = options.project === undefined ? undefined : getProjectRow(db, options.project);
  const query = similarQuery(options);
  const { titleWords, descriptionWords } = query;
  const titleMatch = ftsAnyOf(titleWords);
  if (!titleMatch) return { items: [], note: NO_TITLE_WORD };
  const left = indexNewTickets(db);

  const filters: Filter[] = [];
  if (project)
    filters.push({ column: 'project', kind: 'broad', cond: () => sql`tickets.project_id = ${project.id}` });
  const archived = project ? [] : archivedProjectIds(db);
  if (archived.length > 0) {
    const ids = sqlList(archived);
    filters.push({
      column: 'archived',
      kind: 'residual',
      cond: () => sql`tickets.project_id NOT IN (${ids})`,
    });
  }
  if (!options.include_closed) {
    const open = sqlList(OPEN_STATUSES);
    filters.push({ column: 'status', kind: 'broad', cond: () => sql`tickets.status IN (${open})` });
  }
  const filter = allOf(filters);
  const columns = sql`tickets.id AS id, tickets.key AS key, tickets.title AS title, tickets.status AS status`;
  type Candidate = { id: number; key: string; title: string; status: Status };
  /** The best bm25 hits of a query that pass the filters, at most `keep` of them, best first. */
  const best = (match: string, keep: number): Candidate[] => {
    // Usually the best few hundred by bm25 hold enough open tickets of the project: filter just those rows.
    const rows = db.all<Candidate>(
      sql`SELECT ${columns} FROM (
            SELECT tickets_fts.rowid AS id, ${BM25} AS score FROM tickets_fts WHERE tickets_fts MATCH ${match}
            ORDER BY score, id DESC LIMIT ${SIMILAR_PREFILTER}
          ) AS ranked JOIN tickets ON tickets.id = ranked.id${filter ? sql` WHERE ${filter}` : sql``}
          ORDER BY ranked.score, ranked.id DESC LIMIT ${keep}`,
    );
    // All that were wanted, or all there are: the best SIMILAR_PREFILTER hits are every hit.
    if (!filter || rows.length >= keep || !hitsReach(db, match, SIMILAR_PREFILTER + 1)) return rows;
    // The filters left fewer than wanted of the best hits: rank among the tickets that pass them.
    const text = textHits(match, filters, true);
    return db.all<Candidate>(
      sql`${text.withHits}SELECT ${columns}
          FROM ${text.ranked(sql`LIMIT ${keep}`)} JOIN tickets ON tickets.id = ranked.id
          ORDER BY ranked.score, ranked.id DESC`,
    );
  };
  // The title's words alone pick candidates, so the description (whose rarer words would outrank them in a
  // shared bm25 query) cannot push out a ticket the title finds. Of the best SIMILAR_TITLE_HITS hits, the
  // SIMILAR_CANDIDATES whose titles share the most words go on: bm25 gives a title word nearly its most
  // whatever the description's length, but not quite, so among many tickets holding all the words, those
  // with short descriptions would come first, and a long report of the same title last. With its words
  // added, a second query adds tickets titled in the description's words. Descriptions are searched only with
  // all of the description's most frequent words, which an identical or close description has (long
  // description doclists are intersected, not merged).
  const candidates = closestTitles(options.title, best(`{title} : (${titleMatch})`, SIMILAR_TITLE_HITS));
  const seen = new Set(candidates.map((row) => row.key));
  const add = (match: string) => {
    for (const row of best(match, SIMILAR_CANDIDATES)) {
      if (seen.has(row.key)) continue;
      seen.add(row.key);
      candidates.push(withTitleStems(row));
    }
  };
  const withDescription = ftsAnyOf([...titleWords, ...descriptionWords]);
  if (descriptionWords.length > 0 && withDescription) add(`{title} : (${withDescription})`);
  const { description, sameDescriptionWords } = query;
  if (sameDescriptionWords.length >= 2) add(`{description} : (${allWords(sameDescriptionWords)})`);
  // Descriptions are read only to compare with one given, and only the candidates'.
  const descriptions = new Map(
    description && candidates.length > 0
      ? db
          .all<{ id: number; description: string }>(
            sql`SELECT id, substr(description, 1, 5000) AS description FROM tickets
                WHERE id IN (${sqlList(candidates.map((row) => row.id))})`,
          )
          .map((row) => [row.id, row.description])
      : [],
  );

  const items = similarItems(
    options,
    candidates.map((row) => Object.assign(row, { description: descriptions.get(row.id) })),
  );
  const none = items.length === 0 ? noSimilar(options, project?.key) : undefined;
  const notes = [left > 0 ? leftOutNote(left) : undefined, none].filter((note) => note !== undefined);
  return notes.length > 0 ? { items, note: notes.join('. ') } : { items };
}
