/** The SQLite store: every statement of the server lives here. */
import { Conflict, InvalidInput, NotFound, pageWindow, toPage } from '@shipyard/core';
import { ftsString, ftsWords, recordChanges, transaction, watchChanges } from '@shipyard/db';
import type Database from 'better-sqlite3';
import {
  BM25_WEIGHTS,
  codeHeldBy,
  contentHash,
  headOf,
  identifierWords,
  lineCount,
  newSnippetId,
  type Outcome,
  patched,
  type SnippetFields,
  type SnippetRecord,
  type SnippetVersion,
  snippetUri,
  touchedUris,
  USE_WEIGHT,
  versionMismatch,
} from '../../domain/model.js';
import { META, notFound, nowIso, type Row, toSnippet, toSummary } from '../rows.js';
import type { SearchQuery, SnippetsStore } from '../types.js';
import type { SnippetsDatabase } from './open.js';

/** A search may have at most this many words, each of which must match. */
export const MAX_QUERY_WORDS = 16;

const BM25 = `bm25(snippets_fts, ${BM25_WEIGHTS.join(', ')})`;
/** bm25 times the use factor of model.ts (useFactor), in SQL. */
const RANK = `hits.score * (1.0 + ${USE_WEIGHT} * (s.worked - s.failed) / (s.worked + s.failed + 2.0))`;
const ORDER: Record<SearchQuery['sort'], string> = {
  relevance: 'rank, s.n DESC',
  recent: 's.updated_at DESC, s.n DESC',
  most_used: '(s.worked + s.failed) DESC, s.worked DESC, s.updated_at DESC, s.n DESC',
};

/** The index's columns for a snippet: title, tags, description, code and the parts of its identifiers. */
export const ftsColumns = (fields: SnippetFields) => [
  fields.title,
  fields.tags.join(' '),
  fields.description,
  fields.code,
  identifierWords(fields.code),
];

export function createSqliteStore(open: () => SnippetsDatabase): SnippetsStore {
  let opened: ReturnType<typeof prepare> | undefined;
  const s = () => {
    opened ??= prepare(open());
    return opened;
  };
  return {
    warmUp: () => void s(),
    close: () => opened?.database.close(),
    watch: (changed) => watchChanges(() => s().database, changed),
    saveSnippet: async (fields) => s().save(fields),
    getSnippet: async (id, version) => s().get(id, version),
    updateSnippet: async (id, expected, set) => s().update(id, expected, set),
    deleteSnippet: async (id, expected) => s().remove(id, expected),
    searchSnippets: async (query) => s().search(query),
    listTags: async (limit) => s().listTags(limit),
    recordUse: async (id, outcome, note) => s().recordUse(id, outcome, note),
    listVersions: async (id) => s().listVersions(id),
    listBy: async (filter, limit) => s().listBy(filter, limit),
    exportRecords: async (filter, page, maxChars) => s().exportRecords(filter, page, maxChars),
    importRecord: async (record) => s().importRecord(record),
    completeIds: async (prefix) =>
      s().complete("SELECT id AS v FROM snippets WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 100", prefix),
    completeTags: async (prefix) =>
      s().complete(
        "SELECT DISTINCT tag AS v FROM snippet_tags WHERE tag LIKE ? ESCAPE '\\' ORDER BY tag LIMIT 100",
        prefix,
      ),
    completeLanguages: async (prefix) =>
      s().complete(
        "SELECT DISTINCT language AS v FROM snippets WHERE language LIKE ? ESCAPE '\\' ORDER BY language LIMIT 100",
        prefix,
      ),
  };
}

function prepare(database: SnippetsDatabase) {
  const sqlite: Database.Database = database.sqlite;
  const byId = sqlite.prepare<[string], Row>(`SELECT ${META}, s.code FROM snippets s WHERE s.id = ?`);
  const metaById = sqlite.prepare<[string], Row>(`SELECT ${META} FROM snippets s WHERE s.id = ?`);
  const byHash = sqlite.prepare<[string], Row>(`SELECT ${META}, s.code FROM snippets s WHERE s.hash = ?`);
  const idTaken = sqlite.prepare<[string], { n: number }>('SELECT n FROM snippets WHERE id = ?');
  const insertSnippet = sqlite.prepare(
    `INSERT INTO snippets (id, title, language, description, tags, source, hash, version, worked, failed,
       last_used_at, created_at, updated_at, head, lines, code)
     VALUES (@id, @title, @language, @description, @tags, @source, @hash, @version, @worked, @failed,
       @last_used_at, @created_at, @updated_at, @head, @lines, @code)`,
  );
  const updateSnippet = sqlite.prepare(
    `UPDATE snippets SET title = @title, language = @language, description = @description, tags = @tags,
       source = @source, hash = @hash, version = @version, updated_at = @updated_at, head = @head,
       lines = @lines, code = @code WHERE n = @n`,
  );
  const insertTag = sqlite.prepare<[string, number]>(
    'INSERT OR IGNORE INTO snippet_tags (tag, n) VALUES (?, ?)',
  );
  const deleteTags = sqlite.prepare<[number]>('DELETE FROM snippet_tags WHERE n = ?');
  const insertFts = sqlite.prepare(
    'INSERT INTO snippets_fts (rowid, title, tags, description, code, words) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const deleteFts = sqlite.prepare<[number]>('DELETE FROM snippets_fts WHERE rowid = ?');
  const insertVersion = sqlite.prepare(
    `INSERT INTO snippet_versions (n, version, title, language, description, tags, source, saved_at, code)
     VALUES (@n, @version, @title, @language, @description, @tags, @source, @saved_at, @code)`,
  );
  const versionsOf = sqlite.prepare<[number], SnippetVersion & { tags: string }>(
    `SELECT version, title, language, description, tags, source, saved_at, code FROM snippet_versions
     WHERE n = ? ORDER BY version DESC`,
  );
  const versionOf = sqlite.prepare<[number, number], SnippetVersion & { tags: string }>(
    `SELECT version, title, language, description, tags, source, saved_at, code FROM snippet_versions
     WHERE n = ? AND version = ?`,
  );
  const countVersions = sqlite.prepare<[number], { c: number }>(
    'SELECT count(*) AS c FROM snippet_versions WHERE n = ?',
  );
  const deleteSnippet = sqlite.prepare<[number]>('DELETE FROM snippets WHERE n = ?');
  const insertUse = sqlite.prepare('INSERT INTO snippet_uses (n, outcome, note, at) VALUES (?, ?, ?, ?)');
  const usesOf = sqlite.prepare<[number], { outcome: Outcome; note: string; at: string }>(
    'SELECT outcome, note, at FROM snippet_uses WHERE n = ? ORDER BY id',
  );
  const countUse = sqlite.prepare(
    `UPDATE snippets SET worked = worked + @worked, failed = failed + @failed, last_used_at = @at WHERE n = @n`,
  );

  const find = (id: string) => {
    const row = byId.get(id);
    if (!row) throw notFound(id);
    return row;
  };
  const indexRow = (n: number, fields: SnippetFields) => insertFts.run(n, ...ftsColumns(fields));
  const freshId = () => {
    for (;;) {
      const id = newSnippetId();
      if (!idTaken.get(id)) return id;
    }
  };
  /** One write transaction; the URIs it changed go to the change log with it, for other processes. */
  const write = <T extends { changed: string[] }>(fn: () => T): T =>
    transaction(
      database,
      () => {
        const result = fn();
        recordChanges(database, result.changed);
        return result;
      },
      { behavior: 'immediate' },
    );

  const columns = (fields: SnippetFields) => ({
    title: fields.title,
    language: fields.language,
    description: fields.description,
    tags: JSON.stringify(fields.tags),
    source: fields.source,
    hash: contentHash(fields.code),
    head: headOf(fields.code),
    lines: lineCount(fields.code),
    code: fields.code,
  });

  const duplicateOf = (hash: string, except?: number) => {
    const row = byHash.get(hash);
    return row && row.n !== except ? row : undefined;
  };

  return {
    database,

    save(fields: SnippetFields) {
      return write(() => {
        const values = columns(fields);
        const existing = duplicateOf(values.hash);
        if (existing) return { snippet: toSnippet(existing), duplicate: true, changed: [] };
        const at = nowIso();
        const id = freshId();
        const { lastInsertRowid } = insertSnippet.run({
          ...values,
          id,
          version: 1,
          worked: 0,
          failed: 0,
          last_used_at: null,
          created_at: at,
          updated_at: at,
        });
        const n = Number(lastInsertRowid);
        for (const tag of fields.tags) insertTag.run(tag, n);
        indexRow(n, fields);
        return { snippet: toSnippet(find(id)), duplicate: false, changed: touchedUris(id, fields) };
      });
    },

    get(id: string, version?: number) {
      const row = find(id);
      const versions = countVersions.get(row.n)?.c ?? 0;
      if (version === undefined || version === row.version) {
        return { snippet: toSnippet(row), current: row.version, versions };
      }
      const old = versionOf.get(row.n, version);
      if (!old) {
        throw new NotFound(`${id} has no version ${version}: it is at version ${row.version}`, {
          hint: `Read snippets://${id}/versions for the versions kept`,
        });
      }
      return {
        snippet: { ...old, id, tags: JSON.parse(old.tags) as string[] },
        current: row.version,
        versions,
      };
    },

    update(id: string, expected: number, set: Partial<SnippetFields>) {
      return write(() => {
        const row = find(id);
        if (row.version !== expected) {
          const { message, hint } = versionMismatch(id, expected, row.version);
          throw new Conflict(message, { hint });
        }
        const before = toSnippet(row);
        const after = patched(before, set);
        const values = columns(after);
        const twin = duplicateOf(values.hash, row.n);
        if (twin) {
          throw codeHeldBy(twin.id);
        }
        insertVersion.run({ n: row.n, ...columns(before), version: row.version, saved_at: row.updated_at });
        updateSnippet.run({ ...values, n: row.n, version: row.version + 1, updated_at: nowIso() });
        deleteTags.run(row.n);
        for (const tag of after.tags) insertTag.run(tag, row.n);
        deleteFts.run(row.n);
        indexRow(row.n, after);
        return {
          snippet: toSnippet(find(id)),
          previous: row.version,
          changed: touchedUris(id, before, after),
        };
      });
    },

    remove(id: string, expected?: number) {
      return write(() => {
        const row = find(id);
        if (expected !== undefined && row.version !== expected) {
          const { message, hint } = versionMismatch(id, expected, row.version);
          throw new Conflict(message, { hint });
        }
        const versions = countVersions.get(row.n)?.c ?? 0;
        deleteFts.run(row.n);
        // Tags, versions and uses go with it (ON DELETE CASCADE).
        deleteSnippet.run(row.n);
        return { id, title: row.title, versions, changed: touchedUris(id, toSnippet(row)) };
      });
    },

    search(query: SearchQuery) {
      const words = ftsWords(query.query ?? '');
      if (words.length > MAX_QUERY_WORDS) {
        throw new InvalidInput(
          `\`query\` has more than ${MAX_QUERY_WORDS} words, and every word must match`,
          {
            hint: `Search with the ${MAX_QUERY_WORDS} or fewer words that best tell the snippet`,
          },
        );
      }
      const match = words.length > 0 ? words.map((w) => ftsString(w.text)).join(' AND ') : undefined;
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.language !== undefined) {
        where.push('s.language = ?');
        params.push(query.language);
      }
      if (query.tags && query.tags.length > 0) {
        where.push(
          `s.n IN (SELECT n FROM snippet_tags WHERE tag IN (${query.tags.map(() => '?').join(', ')}) GROUP BY n HAVING count(*) = ?)`,
        );
        params.push(...query.tags, query.tags.length);
      }
      // Text with no word in it (`"`, `*`, `(`) lists by the filters, as a blank query does, and says so.
      const sort = query.sort === 'relevance' && !match ? 'recent' : query.sort;
      const key = JSON.stringify([match ?? '', query.language ?? null, query.tags ?? [], sort]);
      const window = pageWindow(query, key);
      const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const statement = match
        ? `WITH hits AS MATERIALIZED (
             SELECT rowid AS n, ${sort === 'relevance' ? BM25 : '0'} AS score FROM snippets_fts WHERE snippets_fts MATCH ?
           )
           SELECT ${META}, ${RANK} AS rank, count(*) OVER () AS total
           FROM hits JOIN snippets s ON s.n = hits.n ${filter}
           ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?`
        : `SELECT ${META}, count(*) OVER () AS total FROM snippets s ${filter}
           ORDER BY ${ORDER[sort]} LIMIT ? OFFSET ?`;
      const args = [...(match ? [match] : []), ...params, window.limit, window.offset];
      const rows = sqlite.prepare<unknown[], Row & { total: number }>(statement).all(...args);
      let total = rows[0]?.total;
      if (total === undefined) {
        const counted = match
          ? `SELECT count(*) AS total FROM snippets_fts JOIN snippets s ON s.n = snippets_fts.rowid
             WHERE snippets_fts MATCH ?${where.length ? ` AND ${where.join(' AND ')}` : ''}`
          : `SELECT count(*) AS total FROM snippets s ${filter}`;
        total =
          sqlite.prepare<unknown[], { total: number }>(counted).get(...(match ? [match] : []), ...params)
            ?.total ?? 0;
      }
      const page = toPage(rows.map(toSummary), total, window, key);
      const wordless = !match && (query.query ?? '').trim() !== '';
      return wordless
        ? { ...page, note: 'No words to search for: listed by the filters, most recent first' }
        : page;
    },

    listTags(limit: number) {
      const tags = sqlite
        .prepare<[number], { tag: string; count: number }>(
          'SELECT tag, count(*) AS count FROM snippet_tags GROUP BY tag ORDER BY count DESC, tag LIMIT ?',
        )
        .all(limit);
      const tagTotal =
        sqlite.prepare<[], { c: number }>('SELECT count(DISTINCT tag) AS c FROM snippet_tags').get()?.c ?? 0;
      const languages = sqlite
        .prepare<[number], { language: string; count: number }>(
          `SELECT language, count(*) AS count FROM snippets WHERE language IS NOT NULL
           GROUP BY language ORDER BY count DESC, language LIMIT ?`,
        )
        .all(limit);
      const languageTotal =
        sqlite.prepare<[], { c: number }>('SELECT count(DISTINCT language) AS c FROM snippets').get()?.c ?? 0;
      return {
        tags: { items: tags, total: tagTotal },
        languages: { items: languages, total: languageTotal },
      };
    },

    recordUse(id: string, outcome: Outcome, note: string) {
      return write(() => {
        const row = find(id);
        const at = nowIso();
        insertUse.run(row.n, outcome, note, at);
        countUse.run({
          n: row.n,
          worked: outcome === 'worked' ? 1 : 0,
          failed: outcome === 'failed' ? 1 : 0,
          at,
        });
        const snippet = toSnippet(find(id));
        return { snippet, changed: touchedUris(id, snippet) };
      });
    },

    listVersions(id: string) {
      const row = metaById.get(id);
      if (!row) throw notFound(id);
      const versions = versionsOf
        .all(row.n)
        .map(({ code: _code, ...v }) => ({ ...v, tags: JSON.parse(v.tags) as string[] }));
      return { id, current: row.version, versions };
    },

    listBy(filter: { tag: string } | { language: string }, limit: number) {
      const [condition, value] =
        'tag' in filter
          ? ['s.n IN (SELECT n FROM snippet_tags WHERE tag = ?)', filter.tag]
          : ['s.language = ?', filter.language];
      const rows = sqlite
        .prepare<[string, number], Row & { total: number }>(
          `SELECT ${META}, count(*) OVER () AS total FROM snippets s WHERE ${condition}
           ORDER BY s.updated_at DESC, s.n DESC LIMIT ?`,
        )
        .all(value, limit);
      return { items: rows.map(toSummary), total: rows[0]?.total ?? 0 };
    },

    exportRecords(
      filter: {
        ids?: readonly string[] | undefined;
        tags?: readonly string[] | undefined;
        language?: string | undefined;
      },
      page: { limit?: number | undefined; cursor?: string | undefined },
      maxChars: number,
    ) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.ids?.length) {
        where.push(`s.id IN (${filter.ids.map(() => '?').join(', ')})`);
        params.push(...filter.ids);
      }
      if (filter.language !== undefined) {
        where.push('s.language = ?');
        params.push(filter.language);
      }
      if (filter.tags?.length) {
        where.push(
          `s.n IN (SELECT n FROM snippet_tags WHERE tag IN (${filter.tags.map(() => '?').join(', ')}) GROUP BY n HAVING count(*) = ?)`,
        );
        params.push(...filter.tags, filter.tags.length);
      }
      const key = JSON.stringify(['export', filter]);
      const window = pageWindow(page, key);
      const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const rows = sqlite
        .prepare<unknown[], Row & { total: number }>(
          `SELECT ${META}, s.code, count(*) OVER () AS total FROM snippets s ${clause} ORDER BY s.n LIMIT ? OFFSET ?`,
        )
        .all(...params, window.limit, window.offset);
      const total =
        rows[0]?.total ??
        sqlite
          .prepare<unknown[], { c: number }>(`SELECT count(*) AS c FROM snippets s ${clause}`)
          .get(...params)?.c ??
        0;
      const records: SnippetRecord[] = [];
      let chars = 0;
      for (const row of rows) {
        const versions = versionsOf.all(row.n).map((v) => ({ ...v, tags: JSON.parse(v.tags) as string[] }));
        const size = (row.code?.length ?? 0) + versions.reduce((sum, v) => sum + v.code.length, 0);
        // At least one record a page, so a page always moves on.
        if (records.length > 0 && chars + size > maxChars) break;
        chars += size;
        records.push({ ...toSnippet(row), versions: versions.reverse(), uses: usesOf.all(row.n) });
      }
      return toPage(records, total, window, key);
    },

    importRecord(record: SnippetRecord) {
      return write(() => {
        const values = columns(record);
        const existing = duplicateOf(values.hash);
        if (existing) return { id: existing.id, duplicate: true, changed: [] };
        const id = idTaken.get(record.id) ? freshId() : record.id;
        const { lastInsertRowid } = insertSnippet.run({
          ...values,
          id,
          version: record.version,
          worked: record.worked,
          failed: record.failed,
          last_used_at: record.last_used_at,
          created_at: record.created_at,
          updated_at: record.updated_at,
        });
        const n = Number(lastInsertRowid);
        for (const tag of record.tags) insertTag.run(tag, n);
        for (const version of record.versions) {
          insertVersion.run({ n, ...columns(version), version: version.version, saved_at: version.saved_at });
        }
        for (const use of record.uses) insertUse.run(n, use.outcome, use.note, use.at);
        indexRow(n, record);
        return { id, duplicate: false, changed: touchedUris(id, record) };
      });
    },

    complete(statement: string, prefix: string) {
      const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return sqlite
        .prepare<[string], { v: string }>(statement)
        .all(like)
        .map((row) => row.v);
    },
  };
}

export { snippetUri };
