import fs from 'node:fs';
import path from 'node:path';
import { isShipyardError } from '@shipyard/core';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkDatabase,
  checkReport,
  openDatabase,
  type ShipyardDatabase,
  sqliteErrors,
  transaction,
} from '../src/index.js';
import { damagedFile, tempDir } from './helpers.js';

let database: ShipyardDatabase | undefined;
afterEach(() => {
  database?.close();
  database = undefined;
});

function thrown(run: () => unknown): Error & { code?: string; file?: string } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string; file?: string };
  }
  throw new Error('it did not throw');
}

describe('a damaged data file', () => {
  it('names the file in the damage error, and sqliteErrors says what to do without its path', () => {
    const dir = tempDir();
    const file = damagedFile(dir);
    database = openDatabase({ server: 'tickets', dataDir: dir, quickCheck: false });
    const sqlite = database.sqlite;
    const error = thrown(() => sqlite.prepare('SELECT count(body) FROM t').get());
    expect(error.code).toBe('SQLITE_CORRUPT');
    expect(error.file).toBe(file);
    expect(error.message).toContain(`${file}: database disk image is malformed`);
    expect(error.message).toContain('run shipyard-tickets --check');
    const mapped = sqliteErrors(error);
    expect(isShipyardError(mapped)).toBe(true);
    expect(mapped?.toJSON()).toEqual({
      code: 'internal',
      message:
        'The data file tickets.db is damaged, so this server refuses every write until it is restarted with a sound file',
      hint: 'Reads may still work. Stop the server, restore tickets.db from a backup, and run shipyard-tickets --check to verify a file before starting with it',
    });
    expect(JSON.stringify(mapped?.toJSON())).not.toContain(dir);
  });

  it('refuses every write once a statement met the damage, and reads sound pages still', () => {
    const dir = tempDir();
    damagedFile(dir);
    database = openDatabase({ server: 'tickets', dataDir: dir, quickCheck: false });
    const sqlite = database.sqlite;
    expect(database.damage).toBeUndefined();
    thrown(() => sqlite.prepare('SELECT count(body) FROM t').get());
    expect(database.damage?.code).toBe('SQLITE_CORRUPT');
    // A write to a sound table, by each way a write can go: all fail with the damage.
    for (const write of [
      () => sqlite.prepare('INSERT INTO other VALUES (1)').run(),
      () => sqlite.exec('INSERT INTO other VALUES (2)'),
      () => transaction(database as ShipyardDatabase, (tx) => tx.run(sql`INSERT INTO other VALUES (3)`)),
      () => sqlite.transaction(() => sqlite.prepare('INSERT INTO other VALUES (4)').run()).immediate(),
    ]) {
      const error = thrown(write);
      expect(error.code).toBe('SQLITE_CORRUPT');
      expect(sqliteErrors(error)?.message).toContain('tickets.db is damaged');
    }
    expect(sqlite.prepare('SELECT x FROM other').pluck().all()).toEqual(['sound']);
  });

  it('is found by the quick_check that runs after open, which then stops writes', async () => {
    const dir = tempDir();
    damagedFile(dir);
    database = openDatabase({ server: 'tickets', dataDir: dir });
    const outcome = await database.checked;
    expect(outcome && 'problems' in outcome && outcome.problems.length).toBeGreaterThan(0);
    expect(database.damage?.message).toContain('quick_check found');
    const sqlite = database.sqlite;
    expect(sqliteErrors(thrown(() => sqlite.exec('INSERT INTO other VALUES (1)')))?.code).toBe('internal');
  });

  it('passes the quick_check when sound, and writes go on', async () => {
    database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    database.sqlite.exec('CREATE TABLE t (x)');
    expect(await database.checked).toEqual({ problems: [] });
    database.sqlite.exec('INSERT INTO t VALUES (1)');
    expect(database.damage).toBeUndefined();
  });

  it('runs no check in memory, read-only or when told not to', async () => {
    database = openDatabase({ server: 'tickets', memory: true });
    expect(await database.checked).toBeUndefined();
    database.close();
    const dir = tempDir();
    database = openDatabase({ server: 'tickets', dataDir: dir, quickCheck: false });
    expect(await database.checked).toBeUndefined();
  });
});

describe('a full disk', () => {
  it('is an upstream error naming the file, and writes work again once there is room', () => {
    database = openDatabase({ server: 'tickets', dataDir: tempDir(), quickCheck: false });
    const sqlite = database.sqlite;
    sqlite.exec('CREATE TABLE t (x)');
    sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true })}`);
    const error = thrown(() => sqlite.prepare('INSERT INTO t VALUES (randomblob(100000))').run());
    expect(error.code).toBe('SQLITE_FULL');
    expect(error.file).toBe(database.path);
    expect(sqliteErrors(error)?.toJSON()).toEqual({
      code: 'upstream',
      message:
        'The disk holding tickets.db is full: nothing was saved, and the call can be retried once there is room',
      hint: 'Free space on that disk, then retry the call',
    });
    // A full disk is not damage: once there is room, the same write goes through.
    expect(database.damage).toBeUndefined();
    sqlite.pragma('max_page_count = 1073741823');
    sqlite.prepare('INSERT INTO t VALUES (randomblob(100000))').run();
  });

  it('maps ENOSPC from any other file write the same way, naming the file only', () => {
    const error = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      path: '/home/ana/reports/junit.xml',
    });
    expect(sqliteErrors(error)?.toJSON()).toMatchObject({
      code: 'upstream',
      message: expect.stringContaining('The disk holding junit.xml is full'),
      hint: 'Free space on that disk, then retry the call',
    });
    expect(sqliteErrors(Object.assign(new Error('x'), { code: 'ENOSPC' }))?.message).toContain(
      'The disk holding the data directory is full',
    );
  });
});

describe('checkDatabase', () => {
  it('finds a sound file ok, read-only', () => {
    const dir = tempDir();
    openDatabase({ server: 'tickets', dataDir: dir, quickCheck: false }).close();
    const file = path.join(dir, 'tickets.db');
    const before = fs.statSync(file).mtimeMs;
    const result = checkDatabase({ server: 'tickets', dataDir: dir });
    expect(result).toEqual({ file, ok: true, problems: [] });
    expect(checkReport(result)).toBe(`${file}: ok (integrity_check found no problems)`);
    expect(fs.statSync(file).mtimeMs).toBe(before);
  });

  it('lists the problems of a damaged file, and what to do', () => {
    const dir = tempDir();
    const file = damagedFile(dir);
    const result = checkDatabase({ server: 'tickets', dataDir: dir });
    expect(result.ok).toBe(false);
    expect(result.problems.length).toBeGreaterThan(0);
    const report = checkReport(result);
    expect(report.startsWith(`${file}: damaged; integrity_check found:\n  `)).toBe(true);
    expect(report).toContain('restore tickets.db from a backup, and run shipyard-tickets --check');
  });

  it('says a file that is not a database is damaged', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'tickets.db'), Buffer.alloc(4096, 7));
    expect(checkDatabase({ server: 'tickets', dataDir: dir })).toMatchObject({
      ok: false,
      problems: ['file is not a database'],
    });
  });

  it('refuses a file that does not exist, and does not create it', () => {
    const dir = tempDir();
    expect(() => checkDatabase({ server: 'tickets', dataDir: dir })).toThrow(
      `${path.join(dir, 'tickets.db')} does not exist: there is no data file to check`,
    );
    expect(fs.existsSync(path.join(dir, 'tickets.db'))).toBe(false);
  });
});
