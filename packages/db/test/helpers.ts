import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const MIGRATIONS = path.join(FIXTURES, 'migrations');

const created: string[] = [];

/** A fresh temp directory, removed after the current test. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shipyard-db-'));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The mode bits (e.g. 0o700) of a path. */
export function modeOf(p: string): number {
  return fs.statSync(p).mode & 0o777;
}

/**
 * A table of `rows` rows in its own file (`<dir>/tickets.db`) with the last of its leaf pages overwritten with
 * garbage, and a sound table `other` beside it; returns the file. The connection that wrote it is closed.
 */
export function damagedFile(dir: string, rows = 200): string {
  const file = path.join(dir, 'tickets.db');
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE other (x)');
  const insert = sqlite.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < rows; i++) insert.run('x'.repeat(200));
  sqlite.exec("INSERT INTO other VALUES ('sound')");
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  const size = Number(sqlite.pragma('page_size', { simple: true }));
  const leaves = sqlite
    .prepare("SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'leaf' ORDER BY pageno")
    .pluck()
    .all() as number[];
  sqlite.close();
  const page = leaves.at(-1) as number;
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(size, 0xa5), 0, size, (page - 1) * size);
  fs.closeSync(fd);
  return file;
}
