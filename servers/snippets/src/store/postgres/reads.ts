/** The PostgreSQL store's reads that span many rows: search, counts, lists, export, completion. */
import { InvalidInput, pageWindow, toPage } from '@shipyard/core';
import type { Pool, PoolClient } from 'pg';
import { type Outcome, type SnippetRecord, type SnippetVersion, USE_WEIGHT } from '../../domain/model.js';
import { META, type Row, toSnippet, toSummary } from '../rows.js';
import { MAX_QUERY_WORDS } from '../sqlite/store.js';
import type { SearchQuery, SnippetsStore } from '../types.js';
import { ftsWords, tsQuery } from './search.js';

type Query = Pick<PoolClient, 'query'>;

const RANK = `ts_rank(s.search, q.query) * (1.0 + ${USE_WEIGHT} * (s.worked - s.failed) / (s.worked + s.failed + 2.0))`;
const ORDER: Record<SearchQuery['sort'], string> = {
  relevance: 'rank DESC, s.n DESC',
  recent: 's.updated_at DESC, s.n DESC',
  most_used: '(s.worked + s.failed) DESC, s.worked DESC, s.updated_at DESC, s.n DESC',
};

export interface ReadContext {
  pool: () => Promise<Pool>;
  /** Reads that must agree, in one snapshot. */
  read: <T>(fn: (tx: Query) => Promise<T>) => Promise<T>;
  versionsOf: (tx: Query, n: number) => Promise<(SnippetVersion & { tags: string[] })[]>;
}

// Names and ids sort by code point (COLLATE "C"), as SQLite's BINARY collation does, whatever the database's.
export function postgresReads({
  pool,
  read,
  versionsOf,
}: ReadContext): Pick<
  SnippetsStore,
  | 'searchSnippets'
  | 'listTags'
  | 'listBy'
  | 'exportRecords'
  | 'completeIds'
  | 'completeTags'
  | 'completeLanguages'
> {
  const complete = async (statement: string, prefix: string) => {
    const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return (await (await pool()).query<{ v: string }>(statement, [like])).rows.map((row) => row.v);
  };

  return {
    searchSnippets: async (query) => {
      const words = ftsWords(query.query ?? '');
      if (words.length > MAX_QUERY_WORDS) {
        throw new InvalidInput(
          `\`query\` has more than ${MAX_QUERY_WORDS} words, and every word must match`,
          {
            hint: `Search with the ${MAX_QUERY_WORDS} or fewer words that best tell the snippet`,
          },
        );
      }
      const match = tsQuery(words, 1);
      const params: unknown[] = [...(match?.params ?? [])];
      const where: string[] = match ? ['s.search @@ q.query'] : [];
      if (query.language !== undefined) {
        params.push(query.language);
        where.push(`s.language = $${params.length}`);
      }
      if (query.tags && query.tags.length > 0) {
        params.push(query.tags, query.tags.length);
        where.push(
          `s.n IN (SELECT n FROM snippet_tags WHERE tag = ANY($${params.length - 1}::text[]) GROUP BY n HAVING count(*) = $${params.length})`,
        );
      }
      const sort = query.sort === 'relevance' && !match ? 'recent' : query.sort;
      const key = JSON.stringify([
        words.map((w) => w.text) ?? [],
        query.language ?? null,
        query.tags ?? [],
        sort,
      ]);
      const window = pageWindow(query, key);
      const from = match ? `snippets s CROSS JOIN (SELECT ${match.sql} AS query) q` : 'snippets s';
      const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const rank = match && sort === 'relevance' ? RANK : '0';
      const db = await pool();
      const rows = (
        await db.query<Row & { total: number }>(
          `SELECT ${META}, ${rank} AS rank, (count(*) OVER ())::int AS total FROM ${from} ${filter}
           ORDER BY ${ORDER[sort]} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
          [...params, window.limit, window.offset],
        )
      ).rows;
      const total =
        rows[0]?.total ??
        (await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${from} ${filter}`, params))
          .rows[0]?.total ??
        0;
      const page = toPage(rows.map(toSummary), total, window, key);
      const wordless = !match && (query.query ?? '').trim() !== '';
      return wordless
        ? { ...page, note: 'No words to search for: listed by the filters, most recent first' }
        : page;
    },

    listTags: (limit) =>
      read(async (tx) => {
        const tags = await tx.query<{ tag: string; count: number }>(
          'SELECT tag, count(*)::int AS count FROM snippet_tags GROUP BY tag ORDER BY count DESC, tag COLLATE "C" LIMIT $1',
          [limit],
        );
        const tagTotal = await tx.query<{ c: number }>(
          'SELECT count(DISTINCT tag)::int AS c FROM snippet_tags',
        );
        const languages = await tx.query<{ language: string; count: number }>(
          `SELECT language, count(*)::int AS count FROM snippets WHERE language IS NOT NULL
           GROUP BY language ORDER BY count DESC, language COLLATE "C" LIMIT $1`,
          [limit],
        );
        const languageTotal = await tx.query<{ c: number }>(
          'SELECT count(DISTINCT language)::int AS c FROM snippets',
        );
        return {
          tags: { items: tags.rows, total: tagTotal.rows[0]?.c ?? 0 },
          languages: { items: languages.rows, total: languageTotal.rows[0]?.c ?? 0 },
        };
      }),

    listBy: async (filter, limit) => {
      const [condition, value] =
        'tag' in filter
          ? ['s.n IN (SELECT n FROM snippet_tags WHERE tag = $1)', filter.tag]
          : ['s.language = $1', filter.language];
      const rows = (
        await (
          await pool()
        ).query<Row & { total: number }>(
          `SELECT ${META}, (count(*) OVER ())::int AS total FROM snippets s WHERE ${condition}
           ORDER BY s.updated_at DESC, s.n DESC LIMIT $2`,
          [value, limit],
        )
      ).rows;
      return { items: rows.map(toSummary), total: rows[0]?.total ?? 0 };
    },

    exportRecords: (filter, page, maxChars) =>
      read(async (tx) => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (filter.ids?.length) {
          params.push(filter.ids);
          where.push(`s.id = ANY($${params.length}::text[])`);
        }
        if (filter.language !== undefined) {
          params.push(filter.language);
          where.push(`s.language = $${params.length}`);
        }
        if (filter.tags?.length) {
          params.push(filter.tags, filter.tags.length);
          where.push(
            `s.n IN (SELECT n FROM snippet_tags WHERE tag = ANY($${params.length - 1}::text[]) GROUP BY n HAVING count(*) = $${params.length})`,
          );
        }
        const key = JSON.stringify(['export', filter]);
        const window = pageWindow(page, key);
        const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
        const rows = (
          await tx.query<Row & { total: number }>(
            `SELECT ${META}, s.code, (count(*) OVER ())::int AS total FROM snippets s ${clause}
             ORDER BY s.n LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
            [...params, window.limit, window.offset],
          )
        ).rows;
        const total =
          rows[0]?.total ??
          (await tx.query<{ c: number }>(`SELECT count(*)::int AS c FROM snippets s ${clause}`, params))
            .rows[0]?.c ??
          0;
        const records: SnippetRecord[] = [];
        let chars = 0;
        for (const row of rows) {
          const versions = await versionsOf(tx, row.n);
          const size = (row.code?.length ?? 0) + versions.reduce((sum, v) => sum + v.code.length, 0);
          // At least one record a page, so a page always moves on.
          if (records.length > 0 && chars + size > maxChars) break;
          chars += size;
          const uses = await tx.query<{ outcome: Outcome; note: string; at: string }>(
            'SELECT outcome, note, at FROM snippet_uses WHERE n = $1 ORDER BY id',
            [row.n],
          );
          records.push({ ...toSnippet(row), versions: versions.reverse(), uses: uses.rows });
        }
        return toPage(records, total, window, key);
      }),

    completeIds: (prefix) =>
      complete(
        'SELECT id AS v FROM snippets WHERE id ILIKE $1 ESCAPE \'\\\' ORDER BY id COLLATE "C" LIMIT 100',
        prefix,
      ),
    completeTags: (prefix) =>
      complete(
        'SELECT DISTINCT tag COLLATE "C" AS v FROM snippet_tags WHERE tag ILIKE $1 ESCAPE \'\\\' ORDER BY 1 LIMIT 100',
        prefix,
      ),
    completeLanguages: (prefix) =>
      complete(
        'SELECT DISTINCT language COLLATE "C" AS v FROM snippets WHERE language ILIKE $1 ESCAPE \'\\\' ORDER BY 1 LIMIT 100',
        prefix,
      ),
  };
}
