/**
 * SQL on the database of the engine under test, for what no tool does (many rows at once, a status or a time
 * set by hand, a row deleted). Statements are written once for both engines, with `?` for each value.
 */
import { testDatabaseUrl } from '@shipyard/testing/postgres';
import pg from 'pg';
import { connectTickets, databaseUrlFor, onPostgres } from './helpers.js';

export interface TestSql {
  /** The rows of a query. */
  all<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]>;
  /** The first column of the first row of a query. */
  value<T = unknown>(text: string, ...params: unknown[]): Promise<T>;
  run(text: string, ...params: unknown[]): Promise<void>;
  /** One statement for each list of values, in one transaction. */
  batch(text: string, rows: readonly unknown[][]): Promise<void>;
}

/** `?` as PostgreSQL's `$1`, `$2`, … (the statements here hold no `?` of their own). */
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

let databases = 0;

/** connectTickets, and SQL on the same database. */
export async function connectWithSql(options: Parameters<typeof connectTickets>[0] = {}) {
  if (!onPostgres) {
    const connected = await connectTickets(options);
    const { sqlite } = connected.database;
    const sql: TestSql = {
      all: async <T>(text: string, ...params: unknown[]) => sqlite.prepare(text).all(...params) as T[],
      value: async <T>(text: string, ...params: unknown[]) =>
        sqlite
          .prepare(text)
          .pluck()
          .get(...params) as T,
      run: async (text, ...params) => {
        sqlite.prepare(text).run(...params);
      },
      batch: async (text, rows) => {
        const statement = sqlite.prepare(text);
        sqlite.transaction(() => {
          for (const row of rows) statement.run(...row);
        })();
      },
    };
    return Object.assign(connected, { sql, closeSql: async () => {} });
  }
  // A data dir of its own names one database, which the server and this pool share.
  const dataDir = `sql-${process.pid}-${databases++}`;
  const connected = await connectTickets({ ...options, dataDir });
  // The server makes the schema on its first call: have it open before any SQL.
  await connected.store.warmUp();
  const pool = new pg.Pool({
    connectionString: await databaseUrlFor(dataDir),
    options: '-c search_path=tickets',
    max: 2,
  });
  const all = async <T>(text: string, ...params: unknown[]) =>
    (await pool.query(numbered(text), params)).rows as T[];
  const sql: TestSql = {
    all,
    value: async <T>(text: string, ...params: unknown[]) => {
      const [row] = await all<Record<string, unknown>>(text, ...params);
      return (row ? Object.values(row)[0] : undefined) as T;
    },
    run: async (text, ...params) => {
      await pool.query(numbered(text), params);
    },
    batch: async (text, rows) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const row of rows) await client.query(numbered(text), row as unknown[]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  };
  const url = await databaseUrlFor(dataDir);
  // Dropped here, test by test, rather than all at once after the file (dropAll does nothing more then).
  const closeSql = async () => {
    await pool.end();
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
  return Object.assign(connected, { sql, closeSql });
}

/**
 * Insert `count` tickets of project 1 (SHIP-100 on), each linked to ticket 1 as `relates`: a ticket with
 * more links than a tool call would make in a test's time.
 */
export async function seedRelatedTickets(sql: TestSql, count: number): Promise<void> {
  const numbers = Array.from({ length: count }, (_, i) => [100 + i, `SHIP-${100 + i}`]);
  await sql.batch(
    "INSERT INTO tickets (project_id, number, key, title, description, type) VALUES (1, ?, ?, 't', '', 'task')",
    numbers,
  );
  await sql.batch(
    "INSERT INTO links (source_id, type, target_id) SELECT 1, 'relates', id FROM tickets WHERE key = ?",
    numbers.map(([, key]) => [key]),
  );
}
