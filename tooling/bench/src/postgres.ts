// PostgreSQL for `--database-url`: the server given or a throwaway cluster, a fresh database per scenario,
// and fast seeding of whole tables. A URL's password never reaches a log line or a results file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres, type PostgresDatabase, redactUrl } from '@shipyard/db';
import { type FreshDatabase, freshDatabase, startPostgres } from '@shipyard/testing/postgres';

/** The value of --database-url that starts a throwaway cluster. */
export const AUTO = 'auto';

export interface BenchPostgres {
  /** The server's URL; each scenario makes a database of its own on it. */
  url: string;
  /** How the table names it: `auto` or the URL without its password. */
  shown: string;
  /** Replaces the URL's password in a text (an error message, say) with ***. */
  hide(text: string): string;
  /** Stops the throwaway cluster; a no-op for a server given by URL. */
  stop(): Promise<void>;
}

/** The PostgreSQL server --database-url names, or a throwaway cluster started the way the tests start one. */
export async function benchPostgres(value: string): Promise<BenchPostgres> {
  if (value === AUTO) {
    // The tests' variable would make startPostgres reuse a server: `auto` always starts a cluster of its own.
    const cluster = await startPostgres({ ...process.env, SHIPYARD_TEST_DATABASE_URL: '' });
    return { url: cluster.url, shown: AUTO, hide: (text) => text, stop: () => cluster.stop() };
  }
  if (!/^postgres(ql)?:\/\//i.test(value)) {
    throw new Error(`--database-url takes a postgres:// URL or ${AUTO}, got ${redactUrl(value)}`);
  }
  let password = '';
  try {
    password = new URL(value).password;
  } catch {
    throw new Error(`--database-url is not a valid URL: ${redactUrl(value)}`);
  }
  const secrets = [password, decodeURIComponent(password)].filter((s) => s.length > 0);
  return {
    url: value,
    shown: redactUrl(value),
    hide: (text) => secrets.reduce((out, secret) => out.split(secret).join('***'), text),
    stop: async () => {},
  };
}

/** A new, empty database on the bench's server, dropped when the scenario ends. */
export const scenarioDatabase = (pg: BenchPostgres): Promise<FreshDatabase> => freshDatabase(pg.url);

/**
 * A pool on a scenario's database with the server's schema migrated (from servers/<server>/drizzle-postgres),
 * for a seed to write into.
 */
export async function openSeedDatabase(o: {
  databaseUrl: string;
  root: string;
  server: string;
}): Promise<PostgresDatabase> {
  const migrations = join(o.root, 'servers', o.server, 'drizzle-postgres');
  if (!existsSync(migrations)) {
    throw new Error(
      `servers/${o.server}/drizzle-postgres is missing: the server has no PostgreSQL migrations`,
    );
  }
  return openPostgres({ url: o.databaseUrl, server: o.server, migrations, max: 1 });
}

export type Value = string | number | null;

/**
 * Inserts rows into a table of the server's schema, a batch per statement: each input as a text array,
 * unnested and cast to its column's type as the catalog gives it. `inputs` that are not columns of the table
 * are only there for `computed`: SQL over `u."input"` for further columns (e.g. a tsvector). Sequences of
 * the columns filled are moved past the largest value, so the server's own inserts do not collide.
 */
export async function insertRows(
  database: PostgresDatabase,
  o: {
    table: string;
    inputs: string[];
    rows: Iterable<Value[]>;
    computed?: Record<string, string>;
    batch?: number;
  },
): Promise<number> {
  const table = `"${database.schema}"."${o.table}"`;
  const client = await database.pool.connect();
  try {
    const { rows: types } = await client.query<{ name: string; type: string }>(
      `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
       WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`,
      [table],
    );
    if (types.length === 0) throw new Error(`no table ${table} after the migrations`);
    const typeOf = new Map(types.map((t) => [t.name, t.type]));
    const columns = o.inputs.filter((name) => typeOf.has(name));
    const computed = Object.entries(o.computed ?? {});
    const sql =
      `INSERT INTO ${table} (${[...columns, ...computed.map(([name]) => name)].map((c) => `"${c}"`).join(', ')}) ` +
      `SELECT ${[...columns.map((c) => `u."${c}"::${typeOf.get(c)}`), ...computed.map(([, expression]) => expression)].join(', ')} ` +
      `FROM unnest(${o.inputs.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${o.inputs.map((c) => `"${c}"`).join(', ')})`;
    const size = o.batch ?? 5_000;
    let count = 0;
    let arrays: (string | null)[][] = o.inputs.map(() => []);
    // One batch in flight while the next is made: the database works while the rows are generated.
    let inFlight: Promise<unknown> = Promise.resolve();
    const send = async () => {
      await inFlight;
      if ((arrays[0]?.length ?? 0) === 0) return;
      inFlight = client.query(sql, arrays);
      inFlight.catch(() => {}); // awaited by the next send
      arrays = o.inputs.map(() => []);
    };
    await client.query('BEGIN');
    for (const row of o.rows) {
      row.forEach((value, i) => {
        arrays[i]?.push(value === null ? null : String(value));
      });
      count++;
      if (count % size === 0) await send();
    }
    await send();
    await inFlight;
    for (const column of columns) {
      const { rows } = await client.query<{ s: string | null }>(
        'SELECT pg_get_serial_sequence($1, $2) AS s',
        [table, column],
      );
      const sequence = rows[0]?.s;
      if (sequence) {
        await client.query(
          `SELECT setval($1::regclass, max("${column}")) FROM ${table} HAVING count(*) > 0`,
          [sequence],
        );
      }
    }
    await client.query('COMMIT');
    // Statistics, as autovacuum would have them on a database in use.
    await client.query(`ANALYZE ${table}`);
    return count;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
