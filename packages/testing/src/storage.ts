import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Database from 'better-sqlite3';

/**
 * Overwrites one b-tree page of `table` in a SQLite file with garbage, and returns its number: a leaf page
 * other than the table's root when it has one, so rows on its other pages stay readable. The table's pages
 * are first copied from the WAL into the file (a checkpoint), so the damage is what readers see. With
 * `touch`, a write to the file afterwards (a new table) makes a server running on it drop the pages it holds
 * in memory.
 */
export function damageTable(file: string, table: string, options: { touch?: boolean } = {}): number {
  const sqlite = new Database(file);
  let page: number;
  let size: number;
  try {
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    size = Number(sqlite.pragma('page_size', { simple: true }));
    const pages = sqlite
      .prepare('SELECT pageno, pagetype FROM dbstat WHERE name = ? ORDER BY pageno')
      .all(table) as { pageno: number; pagetype: string }[];
    const leaves = pages.filter((p) => p.pagetype === 'leaf');
    const chosen = leaves.length > 1 ? leaves[leaves.length - 1] : pages[0];
    if (!chosen) throw new Error(`${file} has no table ${table}`);
    page = chosen.pageno;
  } finally {
    sqlite.close();
  }
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, Buffer.alloc(size, 0xa5), 0, size, (page - 1) * size);
  } finally {
    fs.closeSync(fd);
  }
  if (options.touch) {
    const writer = new Database(file);
    try {
      writer.exec('CREATE TABLE damage_touch (x)');
    } finally {
      writer.close();
    }
  }
  return page;
}

export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built bin once (`node <binPath> ...args`), as for `--check` or `--help`, and collects what it wrote. */
export function runBin(binPath: string, args: string[] = []): Promise<BinRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [binPath, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: unknown }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

/**
 * Node options that load the page-limit preload into a spawned server (`spawnServer(bin, args, { env:
 * { NODE_OPTIONS: pageLimitOptions() } })`): each SIGUSR2 the process gets then toggles a cap on its SQLite
 * files at their size, so a write that needs a new page fails with SQLITE_FULL, as on a full disk. The server
 * writes `page limit on` or `page limit off` to stderr once the toggle is made.
 */
export function pageLimitOptions(): string {
  return `--import=${fileURLToPath(new URL('./page-limit.js', import.meta.url))}`;
}

/** Sends the spawned server behind `client` SIGUSR2 and waits until its stderr says the page limit is `state`. */
export async function togglePageLimit(client: Client, stderr: string[], state: 'on' | 'off'): Promise<void> {
  const pid = (client.transport as StdioClientTransport | undefined)?.pid;
  if (!pid) throw new Error('the client has no spawned server');
  const before = stderr.join('').split(`page limit ${state}`).length;
  process.kill(pid, 'SIGUSR2');
  await waitFor(() => stderr.join('').split(`page limit ${state}`).length > before, `page limit ${state}`);
}

/** Waits until `done()` holds (polling), or fails after `timeoutMs` naming what it waited for. */
export async function waitFor(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
