import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { PoolClient } from 'pg';
import { type MigrateResult, newerRelease } from '../migrate.js';
import type { PostgresDatabase } from './open.js';

/** The bookkeeping table, in the server's schema, with drizzle's columns. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

/** Lock key of a schema's migrations: one migrator at a time per schema, across every process. */
const lockKey = (schema: string) => `shipyard.migrate.${schema}`;

async function appliedUpTo(client: PoolClient, schema: string): Promise<number | undefined> {
  const table = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [
    `"${schema}"."${MIGRATIONS_TABLE}"`,
  ]);
  if (table.rows[0]?.t == null) return undefined;
  const last = await client.query<{ created_at: string | null }>(
    `SELECT created_at FROM "${schema}"."${MIGRATIONS_TABLE}" ORDER BY created_at DESC LIMIT 1`,
  );
  const value = last.rows[0]?.created_at;
  return value == null ? undefined : Number(value);
}

/**
 * Applies the drizzle-kit migrations in `migrationsFolder` that the server's schema does not have yet, in
 * order, in one transaction, recording each in `<schema>.__drizzle_migrations`. Processes starting at once
 * serialize on `pg_advisory_lock`: the first applies, the others wait and find nothing to do. A schema whose
 * last recorded migration is newer than any in the folder was migrated by a newer release; it is refused, and
 * nothing is written.
 */
export async function migratePostgres(
  database: PostgresDatabase<Record<string, unknown>>,
  migrationsFolder: string,
): Promise<MigrateResult> {
  const migrations = readMigrationFiles({ migrationsFolder });
  const { schema } = database;
  const newest = Math.max(0, ...migrations.map((migration) => migration.folderMillis));
  const what = `Schema "${schema}" of ${database.where}`;
  const client = await database.pool.connect();
  let broken: unknown;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey(schema)]);
    try {
      const last = await appliedUpTo(client, schema);
      if (last !== undefined && last > newest) {
        throw newerRelease(what, last, newest, 'another database');
      }
      const pending = migrations.filter((m) => last === undefined || m.folderMillis > last);
      if (pending.length === 0) return { applied: 0 };
      await client.query('BEGIN');
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS "${schema}"."${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
        );
        for (const migration of pending) {
          for (const statement of migration.sql) {
            if (statement.trim() !== '') await client.query(statement);
          }
          await client.query(
            `INSERT INTO "${schema}"."${MIGRATIONS_TABLE}" (hash, created_at) VALUES ($1, $2)`,
            [migration.hash, migration.folderMillis],
          );
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback;
        });
        throw error;
      }
      return { applied: pending.length };
    } finally {
      if (!broken) {
        await client
          .query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(schema)])
          .catch((e: unknown) => {
            broken = e;
          });
      }
    }
  } finally {
    // A session lock dies with its connection: one that could not be unlocked is closed, not reused.
    client.release(broken instanceof Error ? broken : undefined);
  }
}
