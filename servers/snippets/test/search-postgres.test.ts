import { ftsWords } from '@shipyard/db';
import { freshDatabase, testDatabaseUrl } from '@shipyard/testing/postgres';
import { describe, expect, it } from 'vitest';
import { plainWords, tsQuery } from '../src/store/postgres/search.js';
import { onPostgres } from './helpers.js';

describe('tsQuery', () => {
  it('passes each word as a parameter, a prefix word reduced to letters and digits with :*', () => {
    expect(tsQuery(ftsWords('useState hook'), 1)).toEqual({
      sql: "(plainto_tsquery('english', $1) && plainto_tsquery('english', $2))",
      params: ['useState', 'hook'],
    });
    expect(tsQuery(ftsWords('déb* x', { prefix: true }), 3)).toEqual({
      sql: "(to_tsquery('english', $3) && plainto_tsquery('english', $4))",
      params: ['deb:*', 'x'],
    });
    expect(tsQuery(ftsWords('& | ! ( ) :*'), 1)).toBeUndefined();
    expect(plainWords('console.log(naïve_value)')).toBe('console log naive value');
  });

  // The syntax check happens in PostgreSQL: text full of tsquery operators must reach it only as words.
  it.runIf(onPostgres)(
    'on PostgreSQL, matches prefixes and reads tsquery syntax in user text as words',
    async () => {
      const database = await freshDatabase(testDatabaseUrl());
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const matches = async (document: string, text: string, prefix = false) => {
          const query = tsQuery(ftsWords(text, { prefix }), 2);
          if (!query) return undefined;
          const found = await client.query<{ m: boolean }>(
            `SELECT to_tsvector('english', $1) @@ ${query.sql} AS m`,
            [plainWords(document), ...query.params],
          );
          return found.rows[0]?.m;
        };
        expect(await matches('debounce the input', 'deb*', true)).toBe(true);
        expect(await matches('debounce the input', 'deb*')).toBe(false);
        expect(await matches('debounce the input', 'debounced inputs')).toBe(true);
        expect(await matches('a b c', "a:* & !b | c' ) (")).toBe(true);
        expect(await matches('a c', "a:* & !b | c' ) (")).toBe(false);
      } finally {
        await client.end();
        await database.drop();
      }
    },
  );
});
