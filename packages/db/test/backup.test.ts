import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backupDatabase, openDatabase } from '../src/index.js';
import { modeOf, tempDir } from './helpers.js';

/** A data dir whose tickets.db holds `rows` rows of table t. */
function seeded(rows: number): string {
  const dataDir = path.join(tempDir(), 'data');
  const database = openDatabase({ server: 'tickets', dataDir });
  database.sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = database.sqlite.prepare('INSERT INTO t (body) VALUES (?)');
  database.sqlite.transaction(() => {
    for (let i = 0; i < rows; i += 1) insert.run(`row ${i} ${'x'.repeat(200)}`);
  })();
  database.close();
  return dataDir;
}

function rowsOf(file: string): number {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    return (sqlite.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

describe('backupDatabase', () => {
  it('writes a private copy that holds every row and says what it wrote, leaving no temporary file', async () => {
    const dataDir = seeded(500);
    const out = path.join(tempDir(), 'copy.db');
    const previous = process.umask(0);
    let summary: string;
    try {
      summary = await backupDatabase({ server: 'tickets', dataDir, file: out, overwrite: false });
    } finally {
      process.umask(previous);
    }
    expect(summary).toMatch(
      new RegExp(`^backed up ${path.join(dataDir, 'tickets.db')} to ${out} \\(\\d+ pages, [\\d.]+ KiB\\)$`),
    );
    expect(rowsOf(out)).toBe(500);
    expect(modeOf(out)).toBe(0o600);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['copy.db']);
  });

  it('refuses to replace an existing file without overwrite, and replaces it with', async () => {
    const dataDir = seeded(3);
    const out = path.join(tempDir(), 'copy.db');
    fs.writeFileSync(out, 'keep me');
    await expect(backupDatabase({ server: 'tickets', dataDir, file: out, overwrite: false })).rejects.toThrow(
      `${out} already exists; add --overwrite to replace it, or name a new file`,
    );
    expect(fs.readFileSync(out, 'utf8')).toBe('keep me');
    await backupDatabase({ server: 'tickets', dataDir, file: out, overwrite: true });
    expect(rowsOf(out)).toBe(3);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['copy.db']);
  });

  it('fails with a message naming the file when there is no data file, and writes nothing', async () => {
    const dataDir = tempDir();
    const out = path.join(tempDir(), 'copy.db');
    await expect(backupDatabase({ server: 'tickets', dataDir, file: out, overwrite: false })).rejects.toThrow(
      `there is no data file ${path.join(dataDir, 'tickets.db')} to back up; check --data-dir or SHIPYARD_DATA_DIR`,
    );
    expect(fs.existsSync(out)).toBe(false);
    await expect(
      backupDatabase({ server: 'tickets', dataDir: ':memory:', file: out, overwrite: false }),
    ).rejects.toThrow('an in-memory database (--data-dir :memory:) has no file to back up');
  });

  it('refuses a target that is a directory, in a missing folder, or the data file itself', async () => {
    const dataDir = seeded(1);
    const request = { server: 'tickets', dataDir, overwrite: true };
    const folder = tempDir();
    await expect(backupDatabase({ ...request, file: folder })).rejects.toThrow(
      `${folder} is a directory; name a file, e.g. ${path.join(folder, 'tickets-backup.db')}`,
    );
    const missing = path.join(folder, 'no', 'such');
    await expect(backupDatabase({ ...request, file: path.join(missing, 'copy.db') })).rejects.toThrow(
      `the folder ${missing} does not exist`,
    );
    const file = path.join(dataDir, 'tickets.db');
    await expect(backupDatabase({ ...request, file })).rejects.toThrow(`${file} is the data file itself`);
    expect(rowsOf(file)).toBe(1);
  });

  it('copies what another connection committed, including what is still only in the WAL', async () => {
    const dataDir = seeded(10);
    const writer = openDatabase({ server: 'tickets', dataDir });
    try {
      // Kept open, so the file is not checkpointed: the new rows live in tickets.db-wal.
      writer.sqlite.pragma('wal_autocheckpoint = 0');
      writer.sqlite.prepare("INSERT INTO t (body) VALUES ('in the wal')").run();
      expect(fs.statSync(`${writer.path}-wal`).size).toBeGreaterThan(0);
      const out = path.join(tempDir(), 'copy.db');
      await backupDatabase({ server: 'tickets', dataDir, file: out, overwrite: false });
      expect(rowsOf(out)).toBe(11);
    } finally {
      writer.close();
    }
  });
});
