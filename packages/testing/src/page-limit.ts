// Preloaded into a spawned server (see pageLimitOptions): each SIGUSR2 caps every SQLite connection the
// process has opened at its file's size, or lifts the cap, so a test can fill the "disk" and make room.
import { createRequire } from 'node:module';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import type Database from 'better-sqlite3';

// The server's own better-sqlite3, as its bin resolves it, so that the patched class is the one it uses.
const bin = process.argv[1] ?? '';
const require = createRequire(path.resolve(bin));
const Sqlite = require('better-sqlite3') as typeof Database;
const opened = new Set<Database.Database>();
const prepare = Sqlite.prototype.prepare;
Sqlite.prototype.prepare = function (this: Database.Database, ...args: unknown[]) {
  opened.add(this);
  return (prepare as (...a: unknown[]) => Database.Statement).apply(this, args);
} as Database.Database['prepare'];
const pragma = Sqlite.prototype.pragma;

let limited = false;
// Worker threads load this too, and take no signals.
if (isMainThread)
  process.on('SIGUSR2', () => {
    limited = !limited;
    for (const sqlite of opened) {
      if (!sqlite.open) continue;
      const pages = limited ? Number(pragma.call(sqlite, 'page_count', { simple: true })) : 1_073_741_823;
      pragma.call(sqlite, `max_page_count = ${pages}`);
    }
    process.stderr.write(`page limit ${limited ? 'on' : 'off'}\n`);
  });
