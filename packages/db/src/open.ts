import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '@shipyard/core';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { type QuickCheckOutcome, quickCheckInBackground } from './check.js';
import { DamageGuard, damageAdvice, type FileError } from './damage.js';
import { ensureDataDir, MEMORY, resolveDataDir } from './data-dir.js';

/** A server name: lowercase letter first, then 1–30 of `a-z`, `0-9`, `-`. It names the file. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9-]{1,30}$/;

/** Default `busy_timeout`: how long a connection waits for another process's lock before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions<TSchema extends Record<string, unknown> = Record<string, never>> {
  /** Server name; the file is `<dataDir>/<server>.db`. Must match {@link SERVER_NAME_PATTERN}. */
  server: string;
  /** Data directory; resolved with {@link resolveDataDir}. `':memory:'` opens an in-memory database. */
  dataDir?: string;
  /** drizzle schema (tables and relations) for `db.query.*`. */
  schema?: TSchema;
  /** Open an in-memory database (same as `dataDir: ':memory:'`). */
  memory?: boolean;
  /** Open an existing file read-only; the file must exist. Not valid with an in-memory database. */
  readonly?: boolean;
  /** `PRAGMA busy_timeout` in milliseconds; default {@link DEFAULT_BUSY_TIMEOUT_MS}. */
  busyTimeoutMs?: number;
  /** How many compiled statements to keep for reuse, by SQL text; 0 turns the cache off. Default 200. */
  statementCache?: number;
  /**
   * Run SQLite's `quick_check` on the file in a worker thread once it is open (default true for a file
   * opened for writing). Damage it finds is written to stderr, and from then on every write is refused.
   */
  quickCheck?: boolean;
}

export interface ShipyardDatabase<TSchema extends Record<string, unknown> = Record<string, never>> {
  /** drizzle over the connection; `db.$client` is the connection too (as drizzle() returns it). */
  readonly db: BetterSQLite3Database<TSchema> & { $client: Database.Database };
  /** The raw better-sqlite3 connection (same connection as `db`). */
  readonly sqlite: Database.Database;
  /** Absolute path of the file, or `':memory:'`. */
  readonly path: string;
  /**
   * The damage found in the file (by a statement, or the background check), if any: once set, every write
   * fails with it and reads go on where they can.
   */
  readonly damage: FileError | undefined;
  /** Settles when the background `quick_check` has finished: what it found, or undefined when none ran. */
  readonly checked: Promise<QuickCheckOutcome | undefined>;
  /** Closes the connection. Safe to call more than once. */
  close(): void;
}

/**
 * SQLite's error with the database file named in its message: its own messages (`file is not a database`,
 * `attempt to write a readonly database`, `database is locked`) do not say which file. The same error (its
 * class, code and stack); any other error is left as it is.
 */
export function aboutFile(file: string, error: unknown): unknown {
  const { code } = (error ?? {}) as { code?: unknown };
  if (!(error instanceof Error) || typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  if (error.message.startsWith(`${file}: `)) return error;
  const message = `${file}: ${error.message}`;
  // A function, not a string: a path may hold `$&`, which a replacement string would expand.
  error.stack = error.stack?.replace(error.message, () => message);
  error.message = message;
  return error;
}

/**
 * An error of better-sqlite3's native module (not built, as when install scripts were skipped, or built for
 * another Node.js) as one line that says how to mend it, where the server is installed; any other error is
 * left as it is.
 */
export function aboutAddon(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const missing = error.message.startsWith('Could not locate the bindings file');
  const otherNode = /NODE_MODULE_VERSION/.test(error.message);
  if (!missing && !otherNode) return error;
  // Both messages name the paths they tried, inside the package's own folder: one a line after an arrow,
  // the other in quotes. A path may hold spaces (Application Support).
  const installed = /(?:\u2192 |')([^'\n]*?)[\\/]node_modules[\\/]better-sqlite3[\\/]/.exec(
    error.message,
  )?.[1];
  const why = missing
    ? 'is not built (its install script did not run)'
    : `was built for another Node.js than this one (${process.version})`;
  const where = installed ? ` in ${installed}` : ' where the server is installed';
  return new Error(
    `SQLite's native module (better-sqlite3) ${why}: run \`npm rebuild better-sqlite3\`${where}`,
    {
      cause: error,
    },
  );
}

/** better-sqlite3's `new Database`, with {@link aboutAddon}'s message when its native module cannot load. */
function connect(file: string, options?: Database.Options): Database.Database {
  try {
    return new Database(file, options);
  } catch (error) {
    throw aboutAddon(error);
  }
}

/**
 * Create the database file readable by its owner only (0600) when it does not exist yet; SQLite gives its
 * -wal and -shm files the database file's mode. An existing file keeps the mode it has.
 */
function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600));
}

/**
 * drizzle prepares every query anew, and SQLite would compile the same SQL text each time, which costs
 * more than a cheap tool call itself. Keep compiled statements by SQL text (least recently used out first). A statement
 * handed out again gets its result mode reset, because drizzle switches statements to raw mode and does
 * not switch them back. Callers must not prepare the same SQL while iterating over it (drizzle does not
 * iterate).
 */
function cacheStatements(sqlite: Database.Database, size: number): void {
  if (size <= 0) return;
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, Database.Statement>();
  sqlite.prepare = ((source: string) => {
    const cached = cache.get(source);
    if (cached) {
      cache.delete(source);
      cache.set(source, cached);
      if (cached.reader) cached.raw(false).pluck(false).expand(false);
      return cached;
    }
    const statement = prepare(source);
    cache.set(source, statement);
    if (cache.size > size) cache.delete(cache.keys().next().value as string);
    return statement;
  }) as Database.Database['prepare'];
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/**
 * Switches the file to WAL (persistent: once set, every later connection is in WAL).
 * Processes opening a new file at the same moment can get SQLITE_BUSY from this pragma despite
 * busy_timeout (SQLite does not run the busy handler on every locking path), so retry until the busy
 * timeout has passed. A file already in WAL needs no lock here.
 */
function enableWal(sqlite: Database.Database, file: string, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    try {
      if (String(sqlite.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      const mode = String(sqlite.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
      if (mode === 'wal') return;
      throw new Error(`Could not switch ${file} to WAL journal mode (SQLite kept "${mode}").`);
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      sleepSync(Math.min(5 * 2 ** Math.min(attempt, 4), 50));
    }
  }
}

/**
 * Opens (creating if needed) the SQLite database of one server and returns drizzle over it.
 *
 * Pragmas: `journal_mode = WAL` (files), `busy_timeout` (default 5000 ms), `foreign_keys = ON`,
 * `synchronous = NORMAL`. The data directory and each missing folder above it are created with mode 0700;
 * an existing data directory that other users can write is used with a warning on stderr.
 */
export function openDatabase<TSchema extends Record<string, unknown> = Record<string, never>>(
  options: OpenDatabaseOptions<TSchema>,
): ShipyardDatabase<TSchema> {
  const {
    server,
    schema,
    readonly = false,
    busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
    statementCache = 200,
    quickCheck = true,
  } = options;
  if (typeof server !== 'string' || !SERVER_NAME_PATTERN.test(server)) {
    throw new Error(
      `Invalid server name ${JSON.stringify(server)}: use 2-31 characters, a lowercase letter first, ` +
        'then lowercase letters, digits or "-" (it names the database file).',
    );
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new Error(`Invalid busyTimeoutMs ${busyTimeoutMs}: use a whole number of milliseconds >= 0.`);
  }

  const memory = options.memory === true || options.dataDir === MEMORY;
  if (memory && readonly) {
    throw new Error('An in-memory database cannot be opened read-only.');
  }

  let file: string;
  let sqlite: Database.Database;
  if (memory) {
    file = MEMORY;
    sqlite = connect(MEMORY);
  } else {
    const dir = resolveDataDir(options.dataDir);
    file = path.join(dir, `${server}.db`);
    if (readonly) {
      if (!fs.existsSync(file)) {
        throw new Error(`Cannot open ${file} read-only: the file does not exist.`);
      }
      sqlite = connect(file, { readonly: true, fileMustExist: true });
    } else {
      ensureDataDir(dir, `shipyard-${server}`);
      try {
        ensurePrivateFile(file);
        sqlite = connect(file);
      } catch (error) {
        throw aboutFile(file, error);
      }
    }
  }

  const guard = new DamageGuard(sqlite, file);
  guard.install();
  try {
    // busy_timeout first, so the pragmas below wait for a lock held by another process.
    sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (!memory && !readonly) enableWal(sqlite, file, busyTimeoutMs);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
  } catch (error) {
    sqlite.close();
    throw aboutFile(file, error);
  }

  cacheStatements(sqlite, statementCache);
  const db = schema === undefined ? drizzle({ client: sqlite }) : drizzle({ client: sqlite, schema });
  const check = quickCheck && !memory && !readonly ? checkInBackground(server, guard) : undefined;

  return {
    db: db as BetterSQLite3Database<TSchema> & { $client: Database.Database },
    sqlite,
    path: file,
    get damage() {
      return guard.damage;
    },
    checked: check?.checked ?? Promise.resolve(undefined),
    close() {
      check?.stop();
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * SQLite's `quick_check` of the guard's file, off the main thread: damage found makes the connection refuse
 * writes, and the log (stderr) names the file and what to do.
 */
function checkInBackground(server: string, guard: DamageGuard) {
  const log = createLogger(server);
  let settle: (outcome: QuickCheckOutcome | undefined) => void = () => {};
  const checked = new Promise<QuickCheckOutcome | undefined>((resolve) => {
    settle = resolve;
  });
  const running = quickCheckInBackground(guard.file, (outcome) => {
    if ('failed' in outcome) {
      log.warn(`quick_check of ${guard.file} could not run: ${outcome.failed}`);
    } else if (outcome.problems.length > 0) {
      guard.damaged(`quick_check found: ${outcome.problems.join('; ')}`);
      log.error(
        `${guard.file} is damaged (quick_check found: ${outcome.problems.join('; ')}); writes are refused ` +
          `until the server restarts with a sound file: stop it, ${damageAdvice(guard.file)}`,
      );
    } else {
      log.debug(`quick_check of ${guard.file}: ok`);
    }
    settle(outcome);
  });
  return {
    checked,
    stop() {
      running.stop();
      settle(undefined);
    },
  };
}
