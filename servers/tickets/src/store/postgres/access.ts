/** How each part of the PostgreSQL store reaches the database: one write transaction, or one read snapshot. */
import { notifyChanges, type PostgresDatabase, pgTransaction } from '@shipyard/db';
import type { PoolClient } from 'pg';
import type { Changed } from '../types.js';

export type Query = Pick<PoolClient, 'query'>;

export interface PgAccess {
  /**
   * One write transaction on one connection (READ COMMITTED: each statement reads the latest commits, so
   * what a write reads after its row locks is what the last writer committed). The URIs it changed are
   * announced inside it, so other processes and replicas hear of it when, and only if, it commits.
   */
  write<T extends Changed>(fn: (tx: Query) => Promise<T>): Promise<T>;
  /** Reads that must agree, on one snapshot (REPEATABLE READ, READ ONLY). */
  read<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  /** The open database (the pool, its schema and URL); opened on first use. */
  database(): Promise<PostgresDatabase<Record<string, unknown>>>;
}

export function pgAccess(database: () => Promise<PostgresDatabase<Record<string, unknown>>>): PgAccess {
  return {
    database,
    write: async (fn) => {
      const { pool, schema } = await database();
      return pgTransaction(pool, async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
        const result = await fn(tx);
        await notifyChanges(tx, schema, result.changed);
        return result;
      });
    },
    read: async (fn) =>
      pgTransaction((await database()).pool, async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        return fn(tx);
      }),
  };
}
