import type Database from 'better-sqlite3';
import type { ShipyardDatabase } from './open.js';

/**
 * The change log: each write transaction appends the resource URIs it changed, so that other processes on
 * the same file can tell their subscribers. The table is @shipyard/db's own, made by `migrate`, like
 * drizzle's bookkeeping table.
 */
export const CHANGE_LOG_TABLE = '__shipyard_changes';

/** Rows kept: the oldest go as new ones come, so the log stays small. A watcher looks every second. */
export const CHANGE_LOG_KEEP = 10_000;

/** How often a watcher looks for other processes' changes. */
export const WATCH_INTERVAL_MS = 1_000;

/** URIs per call of `changed`: a call spread over very many arguments overflows the stack. */
const REPORT_CHUNK = 1_000;
const BATCH = 500;

/**
 * A better-sqlite3 connection, a drizzle database over one (`db.$client`), or a {@link ShipyardDatabase}.
 * Not a drizzle transaction object: inside `transaction(database, (tx) => …)` pass the database itself.
 */
export type Connection =
  | Database.Database
  | { $client: Database.Database }
  | Pick<ShipyardDatabase, 'sqlite'>;

const connectionOf = (db: Connection): Database.Database =>
  '$client' in db ? db.$client : 'sqlite' in db ? db.sqlite : db;

export function ensureChangeLog(sqlite: Database.Database): void {
  sqlite.exec(
    `CREATE TABLE IF NOT EXISTS "${CHANGE_LOG_TABLE}" (id INTEGER PRIMARY KEY, uris TEXT NOT NULL)`,
  );
}

export function hasChangeLog(sqlite: Database.Database): boolean {
  return (
    sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .pluck()
      .get(CHANGE_LOG_TABLE) !== undefined
  );
}

const statements = new WeakMap<
  Database.Database,
  { insert: Database.Statement; prune: Database.Statement }
>();

/**
 * Append the URIs a write changed to the change log. Call it inside the write's transaction, so the log
 * holds exactly the writes that committed; outside one it throws.
 */
export function recordChanges(db: Connection, uris: readonly string[]): void {
  if (uris.length === 0) return;
  const sqlite = connectionOf(db);
  if (typeof sqlite.inTransaction !== 'boolean') {
    throw new TypeError('recordChanges() takes the database (or its connection), not a drizzle transaction');
  }
  if (!sqlite.inTransaction) {
    throw new Error('recordChanges() must run inside the write transaction it records');
  }
  let prepared = statements.get(sqlite);
  if (!prepared) {
    prepared = {
      insert: sqlite.prepare(`INSERT INTO "${CHANGE_LOG_TABLE}" (uris) VALUES (?)`),
      prune: sqlite.prepare(`DELETE FROM "${CHANGE_LOG_TABLE}" WHERE id <= ?`),
    };
    statements.set(sqlite, prepared);
  }
  const { lastInsertRowid } = prepared.insert.run(JSON.stringify([...new Set(uris)]));
  prepared.prune.run(Number(lastInsertRowid) - CHANGE_LOG_KEEP);
}

/**
 * Report the URIs that other processes on the same file changed, for a server definition's `watch`.
 * Every `everyMs`, when SQLite's `data_version` says another connection has committed, the log rows after
 * the last one seen are read and their URIs reported (this process's own among them: `resources/updated`
 * only tells a client to read again). SQLite has one writer at a time, so row ids follow commit order.
 * Returns the function that stops watching.
 */
export function watchChanges(
  db: Connection | (() => Connection),
  changed: (...uris: string[]) => void,
  everyMs = WATCH_INTERVAL_MS,
): () => void {
  let watcher: { look(): void } | undefined;
  const start = () => {
    watcher ??= startWatcher(connectionOf(typeof db === 'function' ? db() : db), changed);
    return watcher;
  };
  try {
    start(); // changes from now on are reported
  } catch {
    // Not open yet, or busy: the first look starts it.
  }
  const timer = setInterval(() => {
    try {
      start().look();
    } catch {
      // The database is closing or busy: the next look tries again.
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

function startWatcher(sqlite: Database.Database, changed: (...uris: string[]) => void) {
  const after = sqlite.prepare<[number], { id: number; uris: string }>(
    `SELECT id, uris FROM "${CHANGE_LOG_TABLE}" WHERE id > ? ORDER BY id LIMIT ${BATCH}`,
  );
  const last = sqlite.prepare(`SELECT coalesce(max(id), 0) FROM "${CHANGE_LOG_TABLE}"`).pluck();
  // data_version and the log's end in one read transaction, so the two describe the same snapshot.
  const state = sqlite.transaction(() => ({
    version: Number(sqlite.pragma('data_version', { simple: true })),
    end: Number(last.get()),
  }));
  let { version: seen, end: mark } = state();
  return {
    look() {
      const now = state();
      // Only this process has written since the last look: it reported its own changes as it made them.
      if (now.version === seen) {
        mark = now.end;
        return;
      }
      const uris = new Set<string>();
      for (let from = mark; ; ) {
        const rows = after.all(from);
        for (const row of rows) {
          if (row.id > now.end) break;
          for (const uri of JSON.parse(row.uris) as string[]) uris.add(uri);
        }
        from = rows.at(-1)?.id ?? from;
        if (rows.length < BATCH || from >= now.end) break;
      }
      const all = [...uris];
      for (let i = 0; i < all.length; i += REPORT_CHUNK) changed(...all.slice(i, i + REPORT_CHUNK));
      [seen, mark] = [now.version, now.end];
    },
  };
}
