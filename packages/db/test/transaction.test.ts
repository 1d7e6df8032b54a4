import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type ShipyardDatabase, transaction } from '../src/index.js';
import { MIGRATIONS, tempDir } from './helpers.js';

const projects = sqliteTable('projects', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
});

let database: ShipyardDatabase<{ projects: typeof projects }>;

function count(): number {
  return database.sqlite.prepare('SELECT count(*) FROM projects').pluck().get() as number;
}

/** Whether a second connection can take the write lock right now (no waiting). */
function writeLockFree(): boolean {
  const other = new Database(database.path, { timeout: 0 });
  try {
    other.exec('BEGIN IMMEDIATE');
    other.exec('ROLLBACK');
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw error;
  } finally {
    other.close();
  }
}

beforeEach(() => {
  database = openDatabase({ server: 'tickets', dataDir: tempDir(), schema: { projects } });
  migrate(database, MIGRATIONS);
});

afterEach(() => {
  database.close();
});

describe('transaction', () => {
  it('commits and returns the callback result', () => {
    const id = transaction(database, (tx) => {
      const row = tx.insert(projects).values({ key: 'SHIP', name: 'Shipyard' }).returning().get();
      return row.id;
    });
    expect(id).toBe(1);
    expect(count()).toBe(1);
  });

  it('rolls back everything when the callback throws', () => {
    expect(() =>
      transaction(database, (tx) => {
        tx.insert(projects).values({ key: 'A', name: 'a' }).run();
        tx.insert(projects).values({ key: 'B', name: 'b' }).run();
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(count()).toBe(0);
  });

  it('rolls back on a constraint error mid-way', () => {
    expect(() =>
      transaction(database, (tx) => {
        tx.insert(projects).values({ key: 'A', name: 'a' }).run();
        tx.insert(projects).values({ key: 'A', name: 'duplicate' }).run();
      }),
    ).toThrow(/UNIQUE/);
    expect(count()).toBe(0);
  });

  it('rejects an async callback with a clear error and rolls back', async () => {
    let rejectLater: (error: Error) => void = () => {};
    expect(() =>
      transaction(database, (tx) => {
        tx.insert(projects).values({ key: 'A', name: 'a' }).run();
        return new Promise<void>((_resolve, reject) => {
          rejectLater = reject;
        });
      }),
    ).toThrow(/returned a Promise/);
    expect(count()).toBe(0);
    expect(database.sqlite.inTransaction).toBe(false);
    // A rejection of the abandoned promise must not surface as an unhandled rejection.
    rejectLater(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('rejects a returned drizzle query that was never run, without running it later', async () => {
    expect(() => transaction(database, (tx) => tx.insert(projects).values({ key: 'A', name: 'a' }))).toThrow(
      /not run/,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(count()).toBe(0);
  });

  it('is IMMEDIATE by default: the write lock is held from BEGIN, before any write', () => {
    transaction(database, (tx) => {
      tx.get(sql`SELECT count(*) FROM projects`);
      expect(writeLockFree()).toBe(false);
    });
    expect(writeLockFree()).toBe(true);
  });

  it("behavior 'deferred' takes no write lock until the first write", () => {
    transaction(
      database,
      (tx) => {
        tx.get(sql`SELECT count(*) FROM projects`);
        expect(writeLockFree()).toBe(true);
        tx.insert(projects).values({ key: 'A', name: 'a' }).run();
        expect(writeLockFree()).toBe(false);
      },
      { behavior: 'deferred' },
    );
    expect(count()).toBe(1);
  });

  it('rejects an unknown behavior', () => {
    expect(() => transaction(database, () => 1, { behavior: 'exclusive' as unknown as 'immediate' })).toThrow(
      /Invalid transaction behavior/,
    );
  });

  it('nests as a savepoint (tx.transaction or transaction() again)', () => {
    transaction(database, (tx) => {
      tx.insert(projects).values({ key: 'OUTER', name: 'outer' }).run();
      expect(() =>
        tx.transaction((inner) => {
          inner.insert(projects).values({ key: 'INNER', name: 'inner' }).run();
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      expect(() =>
        transaction(database, (inner) => {
          inner.insert(projects).values({ key: 'INNER2', name: 'inner' }).run();
          throw new Error('inner fails again');
        }),
      ).toThrow('inner fails again');
    });
    expect(database.db.select({ key: projects.key }).from(projects).all()).toEqual([{ key: 'OUTER' }]);
  });

  it('sees raw better-sqlite3 statements on the same connection as part of the transaction', () => {
    expect(() =>
      transaction(database, () => {
        database.sqlite.prepare("INSERT INTO projects (key, name) VALUES ('RAW', 'raw')").run();
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(count()).toBe(0);
  });
});
