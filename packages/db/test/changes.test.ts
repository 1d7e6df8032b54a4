import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CHANGE_LOG_KEEP,
  CHANGE_LOG_TABLE,
  migrate,
  openDatabase,
  recordChanges,
  type ShipyardDatabase,
  transaction,
  watchChanges,
} from '../src/index.js';
import { MIGRATIONS, tempDir } from './helpers.js';

const open: ShipyardDatabase[] = [];
const stops: (() => void)[] = [];

// Looks run when the test moves the clock, so each test says exactly when the watcher looks.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});

afterEach(() => {
  vi.useRealTimers();
  for (const stop of stops.splice(0)) stop();
  for (const database of open.splice(0)) database.close();
});

function openMigrated(dataDir: string): ShipyardDatabase {
  const database = openDatabase({ server: 'changes', dataDir });
  open.push(database);
  migrate(database, MIGRATIONS);
  return database;
}

const write = (database: ShipyardDatabase, uris: string[]) =>
  transaction(database, () => recordChanges(database, uris));

/** Watch `database` every 10 ms, collecting what it reports. */
function watch(database: ShipyardDatabase): string[][] {
  const reports: string[][] = [];
  stops.push(watchChanges(database.db, (...uris) => reports.push(uris), 10));
  return reports;
}

/** One look of every watcher. */
const settle = () => vi.advanceTimersByTime(10);

describe('the change log', () => {
  it('is made by migrate, and by a later migrate on a file that lacks it', () => {
    const dir = tempDir();
    const database = openMigrated(dir);
    const has = () =>
      database.sqlite.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').pluck().get(CHANGE_LOG_TABLE);
    expect(has()).toBe(1);
    database.sqlite.exec(`DROP TABLE "${CHANGE_LOG_TABLE}"`);
    expect(has()).toBeUndefined();
    expect(migrate(database, MIGRATIONS).applied).toBe(0);
    expect(has()).toBe(1);
  });

  it('refuses a record outside a transaction, which could log a write that never committed', () => {
    const database = openMigrated(tempDir());
    expect(() => recordChanges(database, ['x://1'])).toThrow(/inside the write transaction/);
    transaction(database, (tx) => {
      expect(() => recordChanges(tx as never, ['x://1'])).toThrow(/not a drizzle transaction/);
    });
  });

  it('reports what another connection changed, each URI once a look, and nothing rolled back', () => {
    const dir = tempDir();
    const mine = openMigrated(dir);
    const other = openMigrated(dir);
    const reports = watch(mine);
    write(other, ['x://1', 'x://list', 'x://1']);
    write(other, ['x://2', 'x://list']);
    expect(() =>
      transaction(other, () => {
        recordChanges(other, ['x://rolled-back']);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    settle();
    const reported = reports.flat();
    expect(new Set(reported)).toEqual(new Set(['x://1', 'x://2', 'x://list']));
    expect(reported.filter((uri) => uri === 'x://list')).toHaveLength(1);
  });

  it('does not report again what only this process wrote', () => {
    const dir = tempDir();
    const mine = openMigrated(dir);
    const reports = watch(mine);
    write(mine, ['x://own']);
    settle();
    expect(reports).toEqual([]);
    const other = openMigrated(dir);
    write(other, ['x://theirs']);
    settle();
    expect(reports.flat()).toEqual(['x://theirs']);
  });

  it('reads a long backlog in batches and stops when asked', () => {
    const dir = tempDir();
    const mine = openMigrated(dir);
    const other = openMigrated(dir);
    const reports = watch(mine);
    transaction(other, () => {
      for (let i = 0; i < 1_200; i++) recordChanges(other, [`x://${i}`]);
    });
    settle();
    expect(new Set(reports.flat()).size).toBe(1_200);
    for (const stop of stops.splice(0)) stop();
    write(other, ['x://after-stop']);
    settle();
    expect(reports.flat()).not.toContain('x://after-stop');
  });

  it(`keeps the last ${CHANGE_LOG_KEEP} writes`, () => {
    const database = openMigrated(tempDir());
    transaction(database, () => {
      for (let i = 0; i < CHANGE_LOG_KEEP + 50; i++) recordChanges(database, [`x://${i}`]);
    });
    const count = database.sqlite.prepare(`SELECT count(*) FROM "${CHANGE_LOG_TABLE}"`).pluck().get();
    expect(count).toBe(CHANGE_LOG_KEEP);
    const oldest = database.sqlite
      .prepare(`SELECT uris FROM "${CHANGE_LOG_TABLE}" ORDER BY id LIMIT 1`)
      .pluck()
      .get();
    expect(oldest).toBe(JSON.stringify(['x://50']));
  });
});
