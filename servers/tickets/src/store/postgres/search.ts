/**
 * search_tickets and find_similar_tickets over the stored tsvector (`tickets.search`: title weight A,
 * description B, with its GIN index). The words, filters, cursor, notes and duplicate scores follow the
 * SQLite store's rules (domain/search.ts); only relevance differs, ts_rank_cd instead of bm25 (search-sql.ts).
 */
import { type Page, pageWindow, type SortKey, toPage } from '@shipyard/core';
import { type SQL, sql } from 'drizzle-orm';
import { normaliseLabel, OPEN_STATUSES, priorityRank, type Status, TICKET_KEY } from '../../domain/model.js';
import {
  afterKey,
  checkQueryWords,
  closestTitles,
  DUE_NONE,
  type ExtraField,
  emptySearchHint,
  fold,
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
import type { TicketsStore } from '../types.js';
import type { PgAccess, Query } from './access.js';
import { rowOf, rowsOf, sqlList } from './find.js';
import { SEARCH_CONFIG } from './schema.js';
import { rankOf, type SearchWord, searchWords, tsQuery } from './search-sql.js';
import { findTicketRow, getProjectRow, ticketArgument } from './shared.js';

export type SearchPart = Pick<TicketsStore, 'searchTickets' | 'findSimilarTickets'>;

export function searchPart(access: PgAccess): SearchPart {
  return {
    // One snapshot: the total, the page and its notes agree even while others write.
    searchTickets: (options) => access.read((q) => searchTickets(q, options)),
    findSimilarTickets: (options) => access.read((q) => findSimilarTickets(q, options)),
  };
}

/** A ticket's due date as tickets_due_idx holds it: none is DUE_NONE, after every date. */
const DUE_SQL = `coalesce(tickets.due_date, '${DUE_NONE}')`;
const DUE = sql.raw(DUE_SQL);
const OPEN = sql`tickets.status IN (${sqlList(OPEN_STATUSES)})`;

/** A search row: the summary's columns, the sort key's, and those of the extra fields asked for. */
type Row = SearchRow & {
  _id: number;
  _created: string;
  _rank: number;
  _due: string;
  _score?: number;
  _total: number;
};

const SUMMARY_COLUMNS = sql.raw(
  'tickets.key AS key, tickets.title AS title, tickets.type AS type, tickets.status AS status, ' +
    'tickets.priority AS priority, tickets.assignee AS assignee, tickets.labels AS labels, ' +
    'tickets.updated_at AS "updatedAt", ' +
    // The sort key's other columns, for the next page's cursor (pageItems leaves them out).
    `tickets.id AS _id, tickets.created_at AS _created, tickets.priority_rank AS _rank, ${DUE_SQL} AS _due`,
);

/** Extra columns per requested field (constant SQL, no user text). */
const EXTRA_COLUMNS: Record<ExtraField, SQL> = {
  description: sql.raw(
    // One character more than is shown: where the cut falls inside a flag or an accented letter, pageItems sees it.
    `left(tickets.description, ${LIST_DESCRIPTION_CHARS + 1}) AS description, ` +
      `char_length(tickets.description) > ${LIST_DESCRIPTION_CHARS} AS description_truncated`,
  ),
  reporter: sql.raw('tickets.reporter AS reporter'),
  estimate: sql.raw('tickets.estimate AS estimate'),
  due_date: sql.raw('tickets.due_date AS due_date'),
  parent: sql.raw('(SELECT p.key FROM tickets p WHERE p.id = tickets.parent_id) AS parent'),
  created_at: sql.raw('tickets.created_at AS created_at'),
};

const ORDER: Record<Exclude<Sort, 'relevance'>, SQL> = {
  updated: sql.raw('tickets.updated_at DESC, tickets.id DESC'),
  created: sql.raw('tickets.created_at DESC, tickets.id DESC'),
  priority: sql.raw('tickets.priority_rank ASC, tickets.updated_at DESC, tickets.id DESC'),
  // The soonest first, then the oldest ticket; no due date last.
  due: sql`${DUE} ASC, tickets.id ASC`,
};

/**
 * Keyset paging, as on SQLite: the sort key of a row, which the next page's cursor carries, and the
 * condition for the rows after it in the sort order.
 */
const KEYSET: Record<
  Exclude<Sort, 'relevance'>,
  { key: (row: Row) => SortKey; after: (key: SortKey) => SQL }
> = {
  updated: {
    key: (row) => [row.updatedAt, row._id],
    after: ([at, id]) => sql`(tickets.updated_at, tickets.id) < (${at}::text, ${id}::int)`,
  },
  created: {
    key: (row) => [row._created, row._id],
    after: ([at, id]) => sql`(tickets.created_at, tickets.id) < (${at}::text, ${id}::int)`,
  },
  priority: {
    key: (row) => [row._rank, row.updatedAt, row._id],
    after: ([rank, at, id]) =>
      sql`(tickets.priority_rank > ${rank}::int OR (tickets.priority_rank = ${rank}::int
              AND (tickets.updated_at, tickets.id) < (${at}::text, ${id}::int)))`,
  },
  due: {
    key: (row) => [row._due, row._id],
    after: ([at, id]) => sql`(${DUE}, tickets.id) > (${at}::text, ${id}::int)`,
  },
};

/** The ids of the archived projects, whose tickets a search leaves out unless asked. */
const archivedProjectIds = async (q: Query) =>
  (
    await rowsOf<{ id: number }>(q, sql`SELECT id FROM projects WHERE archived_at IS NOT NULL ORDER BY id`)
  ).map((row) => row.id);

/** A word as the cursor binds it: as the index folds it, so `LOG*` is the question `log*` is. */
const boundWord = (word: SearchWord) => `${fold(word.text)}${word.prefix ? '*' : ''}`;

/**
 * Search tickets: the stored document matching every word (see search-sql.ts), ranked by ts_rank_cd (a
 * title word above description words), or a listing by the filters when there are no words. Pages go on
 * after the last row's sort key, as on SQLite. A relevance score depends on the ticket's own text only, so
 * the scores of the other hits never move between pages.
 */
async function searchTickets(
  q: Query,
  options: SearchOptions,
): Promise<Page<SearchItem> & { note?: string }> {
  // A query that is exactly the key of a ticket (SHIP-5, ship-5) asks for that ticket; as words (ship, 5) it
  // would match every ticket holding both. A key that names no ticket is searched as words.
  const asKey = (options.query ?? '').trim().toUpperCase();
  const keyed = TICKET_KEY.test(asKey) ? (await findTicketRow(q, asKey))?.id : undefined;
  const words = keyed === undefined ? searchWords(options.query ?? '') : [];
  if (keyed === undefined) checkQueryWords(options.query ?? '', words);
  const match = tsQuery(words);
  const sort: Sort =
    options.sort === 'relevance' && !match ? 'updated' : (options.sort ?? (match ? 'relevance' : 'updated'));

  const filters: SQL[] = [];
  if (keyed !== undefined) filters.push(sql`tickets.id = ${keyed}::int`);
  const project = options.project === undefined ? undefined : await getProjectRow(q, options.project);
  if (project) filters.push(sql`tickets.project_id = ${project.id}::int`);
  const archived = project || options.include_archived ? [] : await archivedProjectIds(q);
  if (archived.length > 0) filters.push(sql`tickets.project_id NOT IN (${sqlList(archived)})`);
  if (options.status?.length) filters.push(sql`tickets.status IN (${sqlList(options.status)})`);
  if (options.priority?.length)
    filters.push(sql`tickets.priority_rank IN (${sqlList(options.priority.map(priorityRank))})`);
  if (options.type) filters.push(sql`tickets.type = ${options.type}::text`);
  // Any ASCII case, as SQLite's NOCASE (tickets_assignee_idx): a name retyped as Ana finds ana's tickets.
  if (options.assignee === null) filters.push(sql`tickets.assignee IS NULL`);
  else if (options.assignee !== undefined)
    filters.push(sql`nocase(tickets.assignee) = nocase(${options.assignee}::text)`);
  const label = options.label === undefined ? undefined : normaliseLabel(options.label);
  if (label) filters.push(sql`jsonb_exists(tickets.labels::jsonb, ${label}::text)`);
  const parent =
    options.parent === undefined
      ? undefined
      : (
          await ticketArgument(q, 'parent', options.parent, {
            noneHint: 'Pass a parent key such as SHIP-42; no filter finds the tickets without a parent',
          })
        ).id;
  if (parent !== undefined) filters.push(sql`tickets.parent_id = ${parent}::int`);
  const updatedSince = sinceOf(options.updated_since, 'updated_since');
  if (updatedSince) filters.push(sql`tickets.updated_at >= ${updatedSince}::text`);
  const createdSince = sinceOf(options.created_since, 'created_since');
  if (createdSince) filters.push(sql`tickets.created_at >= ${createdSince}::text`);
  // Due dates are calendar days, compared as text; a ticket without one (DUE_NONE) is after every day.
  const { due_before: dueBefore, due_after: dueAfter } = options;
  if (dueBefore) filters.push(sql`${DUE} <= ${dueBefore}::text`);
  if (dueAfter) filters.push(sql`${DUE} >= ${dueAfter}::text AND ${DUE} < ${DUE_NONE}`);
  const today = options.overdue ? todayUtc() : undefined;
  if (today) filters.push(sql`${DUE} < ${today}::text AND ${OPEN}`);

  const queryKey = searchQueryKey(keyed ?? words.map(boundWord), options, {
    project: project?.id,
    archived,
    parent,
    label,
    updatedSince,
    createdSince,
    today,
    sort,
  });
  const window = pageWindow(options, queryKey);
  const firstPage = !window.after && window.offset === 0;
  const after = afterKey(sort, window.after);

  const fields = new Set(options.fields ?? []);
  const select = sql.join([SUMMARY_COLUMNS, ...[...fields].map((field) => EXTRA_COLUMNS[field])], sql`, `);
  const conds = match ? [sql`tickets.search @@ ${match}`, ...filters] : filters;
  const where = (list: SQL[]) => (list.length > 0 ? sql` WHERE ${sql.join(list, sql` AND `)}` : sql``);
  // One row more than the page, to know whether another page follows. Without a key (a cursor from before
  // keyset paging) the page is at an offset.
  const page = sql`LIMIT ${window.limit + 1}::int OFFSET ${after ? 0 : window.offset}::int`;
  // A first page counts the matches in the pass that reads its rows, rather than in a second scan.
  const counted = firstPage ? sql`count(*) OVER ()::int AS _total` : sql`0 AS _total`;
  let rows: Row[];
  if (sort === 'relevance' && match) {
    const score = sql`${rankOf(sql`tickets.search`, match)}::float8`;
    // After the last hit shown, by the score it has now if its words still match (whatever the filters now
    // say of it), else by the score it had; then by id, newest first among equal scores.
    const past = after
      ? [
          sql`(${score}, tickets.id) < (coalesce((SELECT ${rankOf(sql`t.search`, match)}::float8 FROM tickets t
                WHERE t.id = ${after[1]}::int AND t.search @@ ${match}), ${after[0]}::float8), ${after[1]}::int)`,
        ]
      : [];
    rows = await rowsOf<Row>(
      q,
      sql`SELECT ${select}, ${score} AS _score, ${counted} FROM tickets${where([...conds, ...past])}
          ORDER BY _score DESC, tickets.id DESC ${page}`,
    );
  } else {
    const keyset = KEYSET[sort as Exclude<Sort, 'relevance'>];
    const past = after ? [keyset.after(after)] : [];
    rows = await rowsOf<Row>(
      q,
      sql`SELECT ${select}, ${counted} FROM tickets${where([...conds, ...past])}
          ORDER BY ${ORDER[sort as Exclude<Sort, 'relevance'>]} ${page}`,
    );
  }
  const total = firstPage
    ? (rows[0]?._total ?? 0)
    : ((await rowOf<{ n: number }>(q, sql`SELECT count(*)::int AS n FROM tickets${where(conds)}`))?.n ?? 0);

  const items = pageItems(rows, window.limit, fields);
  const more = rows.length > items.length;
  const last = rows[items.length - 1];
  const key =
    last &&
    (sort === 'relevance'
      ? [last._score ?? 0, last._id]
      : KEYSET[sort as Exclude<Sort, 'relevance'>].key(last));
  const found = toPage(items, total, window, queryKey, { after: key, more });
  const note =
    total === 0 && firstPage
      ? ((await nearMisses(q, label, options.assignee)) ?? (await emptyFacts(q, project)))
      : undefined;
  return note ? Object.assign(found, { note }) : found;
}

/** What to do about a search that found nothing (see domain emptySearchHint). */
async function emptyFacts(q: Query, project: { id: number; key: string } | undefined) {
  const anyProject = Boolean(await rowOf(q, sql`SELECT 1 FROM projects LIMIT 1`));
  const scope = project ? sql` WHERE project_id = ${project.id}::int` : sql``;
  const anyTicket = anyProject && Boolean(await rowOf(q, sql`SELECT 1 FROM tickets${scope} LIMIT 1`));
  return emptySearchHint({ anyProject, anyTicket, project: project?.key });
}

/** The labels or names in use that a label or assignee filter may have meant (see domain nearMissNote). */
async function nearMisses(q: Query, label: string | undefined, assignee: string | null | undefined) {
  /** The values in use spelt like `wanted`; none when it is in use itself (ruled out by other filters). */
  const lookalikes = async (wanted: string, used: SQL, all: SQL) =>
    !spelling(wanted) || (await rowOf(q, used))
      ? []
      : spelledLike(wanted, await rowsOf<{ value: string; n: number }>(q, all));
  const near: NearMisses = {};
  if (label) {
    near.label = await lookalikes(
      label,
      sql`SELECT 1 FROM tickets WHERE jsonb_exists(tickets.labels::jsonb, ${label}::text) LIMIT 1`,
      sql`SELECT j.value, count(*)::int AS n FROM tickets, jsonb_array_elements_text(tickets.labels::jsonb) AS j(value)
          GROUP BY j.value`,
    );
  }
  if (assignee) {
    near.assignee = await lookalikes(
      assignee,
      sql`SELECT 1 FROM tickets WHERE nocase(assignee) = nocase(${assignee}::text) LIMIT 1`,
      sql`SELECT assignee AS value, count(*)::int AS n FROM tickets WHERE assignee IS NOT NULL GROUP BY assignee`,
    );
  }
  return nearMissNote(label, assignee, near);
}

// ---------------------------------------------------------------------------------------------------------
// Similar tickets

const config = sql.raw(`'${SEARCH_CONFIG}'::regconfig`);

/**
 * A tsquery of the stems of `words` (stemmed as the stored text is), each only in the part of the document
 * of `weight` (A: the title, B: the description), joined by `op` (`|`: any, `&`: all). Each stem is quoted,
 * so nothing in the words is read as syntax. NULL when no stem is left.
 */
function stemsQuery(words: readonly string[], weight: 'A' | 'B', op: '|' | '&'): SQL {
  const quoted = sql`'''' || replace(replace(stem, '\\', '\\\\'), '''', '''''') || ''':${sql.raw(weight)}'`;
  return sql`(SELECT string_agg(${quoted}, ${` ${op} `}::text)
    FROM unnest(tsvector_to_array(to_tsvector(${config}, search_fold(${words.join(' ')}::text)))) AS stem)::tsquery`;
}

interface Candidate {
  id: number;
  key: string;
  title: string;
  status: Status;
}

/**
 * Likely duplicates of a ticket that is about to be created, as on SQLite: the title's significant words form
 * an OR query over titles, and with a few frequent words of the description added, a second one; a
 * description's most frequent words, all of them, form a third over descriptions. The best hits of each by
 * ts_rank_cd that pass the filters are scored by domain similarItems.
 */
async function findSimilarTickets(
  q: Query,
  options: SimilarOptions,
): Promise<{ items: SimilarItem[]; note?: string }> {
  const project = options.project === undefined ? undefined : await getProjectRow(q, options.project);
  const query = similarQuery(options);
  const { titleWords, descriptionWords, sameDescriptionWords, description } = query;
  if (titleWords.length === 0) return { items: [], note: NO_TITLE_WORD };

  const filters: SQL[] = [];
  if (project) filters.push(sql`tickets.project_id = ${project.id}::int`);
  const archived = project ? [] : await archivedProjectIds(q);
  if (archived.length > 0) filters.push(sql`tickets.project_id NOT IN (${sqlList(archived)})`);
  if (!options.include_closed) filters.push(OPEN);
  /**
   * The best hits of a query that pass the filters, at most `keep` of them, best first. The rank is divided
   * by the log of the ticket's length, as bm25 weighs length: of tickets that hold the same words, the ones
   * that say little else come first.
   */
  const best = async (match: SQL, keep: number) => {
    const conds = sql.join([sql`tickets.search @@ ${match}`, ...filters], sql` AND `);
    return rowsOf<Candidate>(
      q,
      sql`SELECT tickets.id, tickets.key, tickets.title, tickets.status FROM tickets WHERE ${conds}
          ORDER BY ${rankOf(sql`tickets.search`, match)} / (1 + ln(1 + length(tickets.search))) DESC, tickets.id DESC
          LIMIT ${keep}::int`,
    );
  };
  // The title's words alone pick candidates, so the description cannot push out a ticket the title finds; of
  // the best title hits, those whose titles share the most words go on. A second query adds tickets titled
  // in the description's words; descriptions are searched only with all of their most frequent words.
  const candidates = closestTitles(
    options.title,
    await best(stemsQuery(titleWords, 'A', '|'), SIMILAR_TITLE_HITS),
  );
  const seen = new Set(candidates.map((row) => row.key));
  const add = async (match: SQL) => {
    for (const row of await best(match, SIMILAR_CANDIDATES)) {
      if (seen.has(row.key)) continue;
      seen.add(row.key);
      candidates.push(withTitleStems(row));
    }
  };
  if (descriptionWords.length > 0) await add(stemsQuery([...titleWords, ...descriptionWords], 'A', '|'));
  if (sameDescriptionWords.length >= 2) await add(stemsQuery(sameDescriptionWords, 'B', '&'));
  // Descriptions are read only to compare with one given, and only the candidates'.
  const descriptions = new Map(
    description && candidates.length > 0
      ? (
          await rowsOf<{ id: number; description: string }>(
            q,
            sql`SELECT id, left(description, 5000) AS description FROM tickets
                WHERE id IN (${sqlList(candidates.map((row) => row.id))})`,
          )
        ).map((row) => [row.id, row.description])
      : [],
  );
  const items = similarItems(
    options,
    candidates.map((row) => Object.assign(row, { description: descriptions.get(row.id) })),
  );
  return items.length > 0 ? { items } : { items, note: noSimilar(options, project?.key) };
}
