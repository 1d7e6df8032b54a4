import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ftsAllOf, ftsAnyOf, ftsQuery, ftsString, ftsWords } from '../src/fts.js';

describe('ftsQuery', () => {
  it('quotes every word and joins them with AND', () => {
    expect(ftsQuery('foo AND (bar')).toBe('"foo" AND "AND" AND "bar"');
    expect(ftsQuery('a b', { join: 'OR' })).toBe('"a" OR "b"');
  });

  it('reads * as a prefix only after a word and only when allowed', () => {
    expect(ftsQuery('deb* x')).toBe('"deb" AND "x"');
    expect(ftsQuery('deb* x', { prefix: true })).toBe('"deb"* AND "x"');
    expect(ftsQuery('* "', { prefix: true })).toBeUndefined();
  });

  it('keeps each word once and letters of any script', () => {
    expect(ftsWords('Łatwy łatwy NEAR near')).toEqual([
      { text: 'Łatwy', prefix: false },
      { text: 'NEAR', prefix: false },
    ]);
  });

  it('doubles quotes inside a string', () => {
    expect(ftsString('a"b', true)).toBe('"a""b"*');
    expect(ftsAnyOf([])).toBeUndefined();
    expect(ftsAllOf(['x', 'y'])).toBe('"x" AND "y"');
  });

  it('makes expressions FTS5 accepts, whatever the text', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t VALUES ('near the AND gate')");
    const search = db.prepare<[string], { body: string }>('SELECT body FROM t WHERE t MATCH ?');
    for (const text of ['foo AND (', '"', 'NEAR(a b)', 'body: gate', '^the -gate', 'and gate*']) {
      const match = ftsQuery(text, { prefix: true });
      if (match) expect(() => search.all(match)).not.toThrow();
    }
    expect(search.all(ftsQuery('NEAR and') ?? '')).toHaveLength(1);
    db.close();
  });
});
