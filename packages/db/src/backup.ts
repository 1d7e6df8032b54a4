import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BackupRequest } from '@shipyard/core';
import Database from 'better-sqlite3';
import { MEMORY, resolveDataDir } from './data-dir.js';
import { aboutAddon, aboutFile, DEFAULT_BUSY_TIMEOUT_MS } from './open.js';

/** Largest page count better-sqlite3 takes for one backup step: the whole file in one step. */
const ALL_PAGES = 0x7fffffff;

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = size;
  let unit = -1;
  do {
    value /= 1024;
    unit += 1;
  } while (value >= 1024 && unit < units.length - 1);
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Where the copy goes: an absolute path whose folder exists, not a directory, not the data file's own. */
function checkTarget(target: string, file: string, overwrite: boolean): void {
  const folder = path.dirname(target);
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`the folder ${folder} does not exist; create it or name a file in another folder`);
  }
  const existing = fs.statSync(target, { throwIfNoEntry: false });
  if (!existing) return;
  if (existing.isDirectory()) {
    throw new Error(
      `${target} is a directory; name a file, e.g. ${path.join(target, `${path.basename(file, '.db')}-backup.db`)}`,
    );
  }
  const source = fs.statSync(file);
  if (existing.dev === source.dev && existing.ino === source.ino) {
    throw new Error(`${target} is the data file itself; name another file for the copy`);
  }
  if (!overwrite) {
    throw new Error(`${target} already exists; add --overwrite to replace it, or name a new file`);
  }
}

/** Publishes the finished copy under its name: without --overwrite, never over a file made meanwhile. */
function publish(temp: string, target: string, overwrite: boolean): void {
  if (overwrite) {
    fs.renameSync(temp, target);
    return;
  }
  try {
    // link() fails if the name exists, where rename() would replace it.
    fs.linkSync(temp, target);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') {
      throw new Error(`${target} already exists; add --overwrite to replace it, or name a new file`);
    }
    // A file system without hard links: check, then rename.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw error;
    if (fs.existsSync(target)) {
      throw new Error(`${target} already exists; add --overwrite to replace it, or name a new file`);
    }
    fs.renameSync(temp, target);
    return;
  }
  fs.rmSync(temp, { force: true });
}

/** Makes the rename durable; some systems cannot open a folder for fsync, and the copy is whole anyway. */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(folder, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Best effort only.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * `--backup FILE` of every server: a consistent copy of `<dataDir>/<server>.db` through SQLite's online
 * backup API while other processes keep writing. The copy is written to a temporary name beside FILE (mode
 * 0600), then renamed to FILE. An existing FILE is refused unless `overwrite`. Returns a one-line summary.
 */
export async function backupDatabase(request: BackupRequest): Promise<string> {
  const { server, dataDir, overwrite } = request;
  const dir = resolveDataDir(dataDir);
  if (dir === MEMORY) {
    throw new Error('an in-memory database (--data-dir :memory:) has no file to back up');
  }
  const file = path.join(dir, `${server}.db`);
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
    throw new Error(
      `there is no data file ${file} to back up; check --data-dir or SHIPYARD_DATA_DIR (the server creates the file when it first opens it)`,
    );
  }
  const target = path.resolve(request.file);
  checkTarget(target, file, overwrite);

  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let source: Database.Database | undefined;
  try {
    try {
      source = new Database(file, { fileMustExist: true });
      source.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
    } catch (error) {
      throw aboutFile(file, aboutAddon(error));
    }
    try {
      // Created by us, so the copy is private (0600) like the data file, whatever the umask.
      fs.closeSync(fs.openSync(temp, 'wx', 0o600));
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      throw new Error(
        `cannot write in the folder ${path.dirname(target)} (${code ?? (error as Error).message}); name a file in a folder you can write`,
      );
    }
    try {
      // One step for the whole file: SQLite copies it under one read transaction, a snapshot that writers in
      // other processes (WAL) do not disturb. Smaller steps would restart each time another process writes.
      const { totalPages } = await source.backup(temp, { progress: () => ALL_PAGES });
      // The copy keeps WAL mode from the header; in rollback mode it is one file that can be opened, even
      // read-only, without -wal and -shm files appearing beside it. A restored file is set back to WAL on open.
      const copy = new Database(temp, { fileMustExist: true });
      try {
        copy.pragma('journal_mode = DELETE');
      } finally {
        copy.close();
      }
      publish(temp, target, overwrite);
      syncFolder(path.dirname(target));
      return `backed up ${file} to ${target} (${totalPages} pages, ${bytes(fs.statSync(target).size)})`;
    } catch (error) {
      const { code } = error as { code?: unknown };
      // SQLite's messages name no file: this one may be about either end.
      if (error instanceof Error && typeof code === 'string' && code.startsWith('SQLITE_')) {
        error.message = `copying ${file} to ${target}: ${error.message}`;
      }
      throw error;
    }
  } finally {
    source?.close();
    fs.rmSync(temp, { force: true });
    fs.rmSync(`${temp}-journal`, { force: true });
  }
}
