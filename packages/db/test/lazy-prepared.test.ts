import { describe, expect, it } from 'vitest';
import { lazyDatabase, preparedOnce } from '../src/index.js';

describe('lazyDatabase', () => {
  it('opens on first use or warm-up, once, and closes only what it opened', () => {
    const events: string[] = [];
    const open = () => {
      events.push('open');
      return { db: { name: 'db' }, close: () => events.push('close') };
    };
    const unused = lazyDatabase(open);
    unused.close();
    expect(events).toEqual([]);

    const database = lazyDatabase(open);
    database.warmUp();
    expect(database.db).toEqual({ name: 'db' });
    database.warmUp();
    database.close();
    expect(events).toEqual(['open', 'close']);
  });

  it('surfaces an open error on warm-up and tries again on the next use', () => {
    let attempts = 0;
    const database = lazyDatabase(() => {
      attempts++;
      throw new Error('cannot create the data dir');
    });
    expect(() => database.warmUp()).toThrow('cannot create the data dir');
    expect(() => database.db).toThrow('cannot create the data dir');
    expect(attempts).toBe(2);
  });
});

describe('preparedOnce', () => {
  it('builds once per database and build function', () => {
    let builds = 0;
    const build = (db: { name: string }) => {
      builds++;
      return { query: `SELECT 1 -- ${db.name}` };
    };
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(preparedOnce(a, build)).toBe(preparedOnce(a, build));
    expect(preparedOnce(b, build).query).toContain('b');
    expect(builds).toBe(2);
  });
});
