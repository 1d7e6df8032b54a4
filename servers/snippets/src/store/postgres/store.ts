/** The PostgreSQL store: the same interface as the SQLite one, over a pool, one transaction per write. */
import { Conflict, NotFound } from '@shipyard/core';
import { notifyChanges, pgTransaction, watchPostgres } from '@shipyard/db';
import type { PoolClient } from 'pg';
import {
  codeHeldBy,
  contentHash,
  headOf,
  lineCount,
  newSnippetId,
  type Outcome,
  patched,
  type SnippetFields,
  type SnippetRecord,
  type SnippetVersion,
  touchedUris,
  versionMismatch,
} from '../../domain/model.js';
import { META, notFound, nowIso, type Row, toSnippet } from '../rows.js';
import type { SnippetsStore } from '../types.js';
import type { SnippetsPgDatabase } from './open.js';
import { postgresReads } from './reads.js';
import { documentParts, documentSql } from './search.js';

type Query = Pick<PoolClient, 'query'>;

const VERSION_COLUMNS = 'version, title, language, description, tags, source, saved_at, code';

const INSERT_SNIPPET = `INSERT INTO snippets (id, title, language, description, tags, source, hash, version, worked,
    failed, last_used_at, created_at, updated_at, head, lines, code, search)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, ${documentSql(17, 18, 19)})
  ON CONFLICT DO NOTHING RETURNING n`;

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

const hashTaken = (error: unknown) =>
  (error as { code?: unknown; constraint?: unknown }).code === '23505' &&
  (error as { constraint?: unknown }).constraint === 'snippets_hash_unique';

export function createPostgresStore(open: () => Promise<SnippetsPgDatabase>): SnippetsStore {
  let opening: Promise<SnippetsPgDatabase> | undefined;
  const database = () => {
    opening ??= open();
    return opening;
  };
  const pool = async () => (await database()).pool;
  /**
   * One write transaction: what it decides on is read with FOR UPDATE in it, on its own connection. The
   * URIs it changed are announced in it, so other processes hear of it when, and only if, it commits.
   */
  const write = async <T extends { changed: string[] }>(fn: (tx: Query) => Promise<T>) => {
    const { pool, schema } = await database();
    return pgTransaction(pool, async (tx) => {
      const result = await fn(tx);
      await notifyChanges(tx, schema, result.changed);
      return result;
    });
  };
  /** Several reads that must agree: one snapshot. */
  const read = async <T>(fn: (tx: Query) => Promise<T>) =>
    pgTransaction(await pool(), async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      return fn(tx);
    });

  const rowBy = async (tx: Query, where: string, value: string, lock = false) =>
    (
      await tx.query<Row>(
        `SELECT ${META}, s.code FROM snippets s WHERE ${where} = $1${lock ? ' FOR UPDATE' : ''}`,
        [value],
      )
    ).rows[0];
  const find = async (tx: Query, id: string, lock = false) => {
    const row = await rowBy(tx, 's.id', id, lock);
    if (!row) throw notFound(id);
    return row;
  };
  const countVersions = async (tx: Query, n: number) =>
    (await tx.query<{ c: number }>('SELECT count(*)::int AS c FROM snippet_versions WHERE n = $1', [n]))
      .rows[0]?.c ?? 0;
  const versionsOf = async (tx: Query, n: number) =>
    (
      await tx.query<SnippetVersion & { tags: string }>(
        `SELECT ${VERSION_COLUMNS} FROM snippet_versions WHERE n = $1 ORDER BY version DESC`,
        [n],
      )
    ).rows.map((v) => ({ ...v, tags: JSON.parse(v.tags) as string[] }));
  const setTags = async (tx: Query, n: number, tags: readonly string[]) => {
    await tx.query('DELETE FROM snippet_tags WHERE n = $1', [n]);
    if (tags.length > 0) {
      await tx.query(
        'INSERT INTO snippet_tags (tag, n) SELECT DISTINCT unnest($1::text[]), $2::int ON CONFLICT DO NOTHING',
        [tags, n],
      );
    }
  };
  const insertVersion = async (
    tx: Query,
    n: number,
    fields: SnippetFields,
    version: number,
    savedAt: string,
  ) => {
    const v = columns(fields);
    await tx.query(
      `INSERT INTO snippet_versions (n, version, title, language, description, tags, source, saved_at, code)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [n, version, v.title, v.language, v.description, v.tags, v.source, savedAt, v.code],
    );
  };
  /**
   * Insert a snippet under a fresh id (or `wanted` when free). Undefined when its code is already stored:
   * ON CONFLICT waits for a concurrent writer of the same code and then finds its row.
   */
  const insert = async (
    tx: Query,
    fields: SnippetFields,
    state: Pick<
      SnippetRecord,
      'version' | 'worked' | 'failed' | 'last_used_at' | 'created_at' | 'updated_at'
    >,
    wanted?: string,
  ): Promise<{ n: number; id: string } | undefined> => {
    const v = columns(fields);
    const doc = documentParts(fields);
    for (let id = wanted ?? newSnippetId(); ; id = newSnippetId()) {
      const inserted = await tx.query<{ n: number }>(INSERT_SNIPPET, [
        id,
        v.title,
        v.language,
        v.description,
        v.tags,
        v.source,
        v.hash,
        state.version,
        state.worked,
        state.failed,
        state.last_used_at,
        state.created_at,
        state.updated_at,
        v.head,
        v.lines,
        v.code,
        doc.a,
        doc.b,
        doc.d,
      ]);
      const n = inserted.rows[0]?.n;
      if (n !== undefined) {
        await setTags(tx, n, fields.tags);
        return { n, id };
      }
      // Not inserted: the code is stored already, or the id is taken (then another id).
      if (await rowBy(tx, 's.hash', v.hash)) return undefined;
    }
  };

  return {
    ...postgresReads({ pool, read, versionsOf }),
    warmUp: async () => {
      await database();
    },
    close: async () => {
      if (opening) await (await opening.catch(() => undefined))?.close();
    },
    // Every process's writes, this one's among them: resources/updated only tells a client to read again.
    watch: watchPostgres(database),

    saveSnippet: (fields) =>
      write(async (tx) => {
        const existing = await rowBy(tx, 's.hash', contentHash(fields.code));
        if (existing) return { snippet: toSnippet(existing), duplicate: true, changed: [] };
        const at = nowIso();
        const state = {
          version: 1,
          worked: 0,
          failed: 0,
          last_used_at: null,
          created_at: at,
          updated_at: at,
        };
        const made = await insert(tx, fields, state);
        if (!made) {
          const twin = await rowBy(tx, 's.hash', contentHash(fields.code));
          if (twin) return { snippet: toSnippet(twin), duplicate: true, changed: [] };
          throw new Error('a snippet with this code was stored and deleted while saving');
        }
        return {
          snippet: toSnippet(await find(tx, made.id)),
          duplicate: false,
          changed: touchedUris(made.id, fields),
        };
      }),

    getSnippet: async (id, version) => {
      const found = (
        await (
          await pool()
        ).query<Row & { versions: number }>(
          `SELECT ${META}, s.code, (SELECT count(*)::int FROM snippet_versions v WHERE v.n = s.n) AS versions
           FROM snippets s WHERE s.id = $1`,
          [id],
        )
      ).rows[0];
      if (!found) throw notFound(id);
      const { versions, ...row } = found;
      if (version === undefined || version === row.version) {
        return { snippet: toSnippet(row), current: row.version, versions };
      }
      const old = (
        await (
          await pool()
        ).query<SnippetVersion & { tags: string }>(
          `SELECT ${VERSION_COLUMNS} FROM snippet_versions WHERE n = $1 AND version = $2`,
          [row.n, version],
        )
      ).rows[0];
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

    updateSnippet: async (id, expected, set) => {
      try {
        return await write(async (tx) => {
          // The row stays locked until commit: a second writer with the same expected version waits, then
          // reads the new version and gets its Conflict.
          const row = await find(tx, id, true);
          if (row.version !== expected) {
            const { message, hint } = versionMismatch(id, expected, row.version);
            throw new Conflict(message, { hint });
          }
          const before = toSnippet(row);
          const after = patched(before, set);
          const values = columns(after);
          const twin = await rowBy(tx, 's.hash', values.hash);
          if (twin && twin.n !== row.n) throw codeHeldBy(twin.id);
          await insertVersion(tx, row.n, before, row.version, row.updated_at);
          const doc = documentParts(after);
          await tx.query(
            `UPDATE snippets SET title = $1, language = $2, description = $3, tags = $4, source = $5,
               hash = $6, version = $7, updated_at = $8, head = $9, lines = $10, code = $11,
               search = ${documentSql(12, 13, 14)} WHERE n = $15`,
            [
              values.title,
              values.language,
              values.description,
              values.tags,
              values.source,
              values.hash,
              row.version + 1,
              nowIso(),
              values.head,
              values.lines,
              values.code,
              doc.a,
              doc.b,
              doc.d,
              row.n,
            ],
          );
          await setTags(tx, row.n, after.tags);
          return {
            snippet: toSnippet(await find(tx, id)),
            previous: row.version,
            changed: touchedUris(id, before, after),
          };
        });
      } catch (error) {
        // Another transaction stored the same code between our check and our write.
        if (hashTaken(error)) throw codeHeldBy('another snippet');
        throw error;
      }
    },

    deleteSnippet: (id, expected) =>
      write(async (tx) => {
        const row = await find(tx, id, true);
        if (expected !== undefined && row.version !== expected) {
          const { message, hint } = versionMismatch(id, expected, row.version);
          throw new Conflict(message, { hint });
        }
        const versions = await countVersions(tx, row.n);
        // Tags, versions and uses go with it (ON DELETE CASCADE).
        await tx.query('DELETE FROM snippets WHERE n = $1', [row.n]);
        return { id, title: row.title, versions, changed: touchedUris(id, toSnippet(row)) };
      }),

    recordUse: (id, outcome: Outcome, note) =>
      write(async (tx) => {
        const at = nowIso();
        const counted = await tx.query<{ n: number }>(
          'UPDATE snippets SET worked = worked + $2, failed = failed + $3, last_used_at = $4 WHERE id = $1 RETURNING n',
          [id, outcome === 'worked' ? 1 : 0, outcome === 'failed' ? 1 : 0, at],
        );
        const n = counted.rows[0]?.n;
        if (n === undefined) throw notFound(id);
        await tx.query('INSERT INTO snippet_uses (n, outcome, note, at) VALUES ($1, $2, $3, $4)', [
          n,
          outcome,
          note,
          at,
        ]);
        const snippet = toSnippet(await find(tx, id));
        return { snippet, changed: touchedUris(id, snippet) };
      }),

    listVersions: (id) =>
      read(async (tx) => {
        const row = await find(tx, id);
        const versions = (await versionsOf(tx, row.n)).map(({ code: _code, ...v }) => v);
        return { id, current: row.version, versions };
      }),

    importRecord: (record) =>
      write(async (tx) => {
        const existing = await rowBy(tx, 's.hash', contentHash(record.code));
        if (existing) return { id: existing.id, duplicate: true, changed: [] };
        const made = await insert(tx, record, record, record.id);
        if (!made) {
          const twin = await rowBy(tx, 's.hash', contentHash(record.code));
          return { id: twin?.id ?? record.id, duplicate: true, changed: [] };
        }
        for (const version of record.versions) {
          await insertVersion(tx, made.n, version, version.version, version.saved_at);
        }
        for (const use of record.uses) {
          await tx.query('INSERT INTO snippet_uses (n, outcome, note, at) VALUES ($1, $2, $3, $4)', [
            made.n,
            use.outcome,
            use.note,
            use.at,
          ]);
        }
        return { id: made.id, duplicate: false, changed: touchedUris(made.id, record) };
      }),
  };
}
