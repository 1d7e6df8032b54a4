import type { RunResult } from 'better-sqlite3';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { SQLiteTransaction } from 'drizzle-orm/sqlite-core';
import type { ShipyardDatabase } from './open.js';

/** The drizzle transaction handed to a {@link transaction} callback. */
export type ShipyardTransaction<TSchema extends Record<string, unknown> = Record<string, never>> =
  SQLiteTransaction<'sync', RunResult, TSchema, ExtractTablesWithRelations<TSchema>>;

export type TransactionBehavior = 'immediate' | 'deferred';

export interface TransactionOptions {
  /**
   * `'immediate'` (default) takes the write lock at `BEGIN`, waiting up to `busy_timeout` for it.
   * `'deferred'` starts as a reader; only for transactions that never write.
   */
  behavior?: TransactionBehavior;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs `fn(tx)` in one transaction: committed when `fn` returns, rolled back when it throws.
 *
 * `fn` must be synchronous (better-sqlite3 is synchronous, and a transaction cannot stay open
 * across an `await`); returning a Promise rolls back and throws a TypeError.
 *
 * Default behavior is IMMEDIATE: a transaction that reads then writes (a key counter, say) under
 * two writer processes fails with SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT when DEFERRED, because its
 * read snapshot can go stale before it upgrades to a writer, and busy_timeout cannot help then.
 * Called inside another transaction, it becomes a savepoint.
 */
export function transaction<TSchema extends Record<string, unknown>, T>(
  database: ShipyardDatabase<TSchema>,
  fn: (tx: ShipyardTransaction<TSchema>) => T,
  options: TransactionOptions = {},
): T {
  const behavior = options.behavior ?? 'immediate';
  if (behavior !== 'immediate' && behavior !== 'deferred') {
    throw new Error(
      `Invalid transaction behavior ${JSON.stringify(behavior)}: use 'immediate' or 'deferred'.`,
    );
  }
  return database.db.transaction(
    (tx) => {
      const result = fn(tx);
      if (isThenable(result)) {
        // Keep a rejected native promise from surfacing as an unhandled rejection; the error below is
        // the report. Never call then() on other thenables: on a drizzle query builder it runs the query.
        if (result instanceof Promise) result.catch(() => {});
        throw new TypeError(
          'transaction(): the callback returned a Promise (or a thenable, such as a drizzle query that was ' +
            'not run). Transactions are synchronous with better-sqlite3: pass a synchronous function, run ' +
            'queries with .run() / .all() / .get() / .values(), and do async work before or after. ' +
            'The transaction was rolled back.',
        );
      }
      return result;
    },
    { behavior },
  );
}
