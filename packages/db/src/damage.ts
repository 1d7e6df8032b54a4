import path from 'node:path';
import type Database from 'better-sqlite3';

/** SQLite's result codes for a file that is damaged or is not a database at all. */
export function isDamage(code: unknown): boolean {
  return typeof code === 'string' && (/^SQLITE_CORRUPT(_|$)/.test(code) || code === 'SQLITE_NOTADB');
}

/** SQLite's result code for a full disk (or a file at its `max_page_count`). */
export function isFull(code: unknown): boolean {
  return code === 'SQLITE_FULL';
}

/** What to do about a damaged data file, for the log and for start-up failures (it names the command). */
export function damageAdvice(file: string): string {
  const server = path.basename(file).replace(/\.db$/, '');
  return (
    `restore ${path.basename(file)} from a backup, and run shipyard-${server} --check ` +
    'to verify a file before starting the server with it'
  );
}

/** An error SQLite raised about a database file: the file it concerns, as `aboutFile` set it. */
export type FileError = Error & { code: string; file: string };

/**
 * Marks an error of SQLite's about a damaged or full file with the file, for the log and for
 * `sqliteErrors` (`error.file`); a damaged file's message also says what to do. Other errors stay as they are.
 */
export function markFile(file: string, error: unknown): unknown {
  const { code } = (error ?? {}) as { code?: unknown };
  if (!(error instanceof Error) || !(isDamage(code) || isFull(code))) return error;
  if ((error as Partial<FileError>).file !== undefined) return error;
  Object.defineProperty(error, 'file', { value: file, enumerable: false });
  const named = error.message.startsWith(`${file}: `) ? error.message : `${file}: ${error.message}`;
  const message = isDamage(code) ? `${named}: the file is damaged; ${damageAdvice(file)}` : named;
  // A function, not a string: a path may hold `$&`, which a replacement string would expand.
  error.stack = error.stack?.replace(error.message, () => message);
  error.message = message;
  return error;
}

/** The error every write gets once the file is known to be damaged: the damage itself, with its file. */
export function damageError(file: string, reason: string): FileError {
  const error = Object.assign(new Error(reason), { code: 'SQLITE_CORRUPT' });
  return markFile(file, error) as FileError;
}

/**
 * Watches one connection for damage. Every error its statements raise about a damaged or full file names
 * the file (markFile). Once the file is known to be damaged (a statement met it, or `damaged()` was
 * called), the connection is query-only: reads go on where the pages they need are sound, and every write
 * fails with the damage error.
 */
export class DamageGuard {
  private found: FileError | undefined;

  constructor(
    private readonly sqlite: Database.Database,
    readonly file: string,
  ) {}

  /** The damage found so far, if any. */
  get damage(): FileError | undefined {
    return this.found;
  }

  /** Record damage found elsewhere (a check): from now on every write fails with it. */
  damaged(reason: string): FileError {
    this.found ??= damageError(this.file, reason);
    if (this.sqlite.open) this.sqlite.pragma('query_only = ON');
    return this.found;
  }

  /** The error to throw for one a statement raised: marked with the file, or the damage for a refused write. */
  private seen(error: unknown): unknown {
    const { code } = (error ?? {}) as { code?: unknown };
    if (this.found && code === 'SQLITE_READONLY') return this.found;
    const marked = markFile(this.file, error);
    if (isDamage(code) && error instanceof Error) this.damaged(error.message);
    return marked;
  }

  /** Wraps the connection's `prepare`, `exec`, `pragma` and `transaction`, and the statements `prepare` returns. */
  install(): void {
    const { sqlite } = this;
    const guard = <A extends unknown[], R>(run: (...args: A) => R) =>
      ((...args: A): R => {
        try {
          return run(...args);
        } catch (error) {
          throw this.seen(error);
        }
      }) as (...args: A) => R;
    const prepare = sqlite.prepare.bind(sqlite) as (...args: unknown[]) => Database.Statement;
    sqlite.prepare = ((...args: unknown[]) => {
      const statement = guard(prepare)(...args);
      for (const method of ['run', 'get', 'all'] as const) {
        const original = (statement[method] as (...args: unknown[]) => unknown).bind(statement);
        (statement as unknown as Record<string, unknown>)[method] = guard(original);
      }
      return statement;
    }) as Database.Database['prepare'];
    sqlite.exec = guard(sqlite.exec.bind(sqlite)) as Database.Database['exec'];
    // better-sqlite3's transactions run BEGIN and COMMIT on statements of their own, not through prepare.
    type Run = (...args: unknown[]) => unknown;
    const transaction = sqlite.transaction.bind(sqlite) as unknown as (fn: Run) => Record<string, Run>;
    sqlite.transaction = ((fn: Run) => {
      const native = transaction(fn);
      const wrapped = Object.assign(guard(native as unknown as Run), { database: sqlite }) as unknown as Run &
        Record<string, unknown>;
      for (const kind of ['deferred', 'immediate', 'exclusive'] as const) {
        wrapped[kind] = guard(native[kind] as Run);
      }
      wrapped.default = wrapped;
      return wrapped;
    }) as unknown as Database.Database['transaction'];
    sqlite.pragma = guard(sqlite.pragma.bind(sqlite)) as Database.Database['pragma'];
  }
}
