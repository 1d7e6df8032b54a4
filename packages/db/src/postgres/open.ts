import { createRequire } from 'node:module';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type * as Pg from 'pg';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { SERVER_NAME_PATTERN } from '../open.js';
import { redactUrl, schemaName } from './engine.js';
import { migratePostgres } from './migrate.js';

export interface OpenPostgresOptions<TSchema extends Record<string, unknown>> {
  /** The database URL (`postgres://…`); one database per organisation. */
  url: string;
  /** Server name; its tables live in the schema of that name ({@link schemaName}). */
  server: string;
  /** drizzle schema (tables) for `db`. */
  schema?: TSchema;
  /** Most connections the pool opens; default 10. */
  max?: number;
  /** The server's migrations folder: applied once open ({@link migratePostgres}); the pool closes if that fails. */
  migrations?: string;
}

export interface PostgresDatabase<TSchema extends Record<string, unknown> = Record<string, never>> {
  /** drizzle over the pool; every connection's search_path is the server's schema. */
  readonly db: NodePgDatabase<TSchema>;
  readonly pool: Pool;
  /** The server's schema. */
  readonly schema: string;
  /** The URL without its password, for messages. */
  readonly where: string;
  /** The URL itself (it may hold a password: never show it), for connections of its own such as LISTEN. */
  readonly url: string;
  /** Ends the pool. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens a pool on the database the URL names, with the server's schema first on every connection's
 * search_path (the schema is made by {@link migratePostgres}). `pg` and drizzle's adapter load here, on
 * first use, so a server that stores in SQLite never loads them.
 */
export async function openPostgres<TSchema extends Record<string, unknown> = Record<string, never>>(
  options: OpenPostgresOptions<TSchema>,
): Promise<PostgresDatabase<TSchema>> {
  const { url, server, schema: tables, max = 10, migrations } = options;
  if (typeof server !== 'string' || !SERVER_NAME_PATTERN.test(server)) {
    throw new Error(
      `Invalid server name ${JSON.stringify(server)}: use 2-31 characters, a lowercase letter first, ` +
        'then lowercase letters, digits or "-" (it names the schema).',
    );
  }
  // require, not import(): a server's bundle is CommonJS and keeps `pg` outside it, as a dependency.
  const pg = createRequire(import.meta.url)('pg') as typeof Pg;
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const schema = schemaName(server);
  const config: PoolConfig = {
    connectionString: url,
    max,
    options: `-c search_path=${schema}`,
    application_name: `shipyard-${server}`,
  };
  const pool = new pg.Pool(config);
  // An idle connection the server drops (a restart, a failover) must not crash the process; the pool
  // replaces it on the next query.
  pool.on('error', () => {});
  const db = (
    tables === undefined ? drizzle({ client: pool }) : drizzle({ client: pool, schema: tables })
  ) as NodePgDatabase<TSchema>;
  let ended: Promise<void> | undefined;
  const database: PostgresDatabase<TSchema> = {
    db,
    pool,
    schema,
    where: redactUrl(url),
    url,
    close() {
      ended ??= pool.end();
      return ended;
    },
  };
  if (migrations !== undefined) {
    try {
      await migratePostgres(database, migrations);
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  return database;
}

/**
 * Runs `fn` in one transaction on one connection of the pool: committed when it resolves, rolled back when
 * it throws. Only `fn`'s own queries run on that connection, so nothing else interleaves with them.
 */
export async function pgTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollback) {
      broken = rollback;
    }
    throw error;
  } finally {
    // A connection that could not roll back is not handed out again.
    client.release(broken instanceof Error ? broken : undefined);
  }
}
