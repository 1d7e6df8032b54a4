import { fileURLToPath } from 'node:url';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { type FreshDatabase, freshDatabase, testDatabaseUrl, testEngine } from '@shipyard/testing/postgres';
import { afterAll } from 'vitest';
import { createSnippetsServer } from '../src/server.js';
import { openSnippetsPostgres } from '../src/store/postgres/open.js';
import { createPostgresStore } from '../src/store/postgres/store.js';
import { openSnippetsDatabase } from '../src/store/sqlite/open.js';
import { createSqliteStore } from '../src/store/sqlite/store.js';
import type { SnippetsStore } from '../src/store/types.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** The engine this run tests (SHIPYARD_TEST_DB). */
export const engine = testEngine();
export const onPostgres = engine === 'postgres';

// On PostgreSQL, a data dir stands for a database: stores opened on one data dir share one database, as
// processes on one SQLite file do. Every test file's databases are dropped after it.
const databases = new Map<string, Promise<FreshDatabase>>();
afterAll(async () => {
  const made = [...databases.values()];
  databases.clear();
  for (const database of made) await (await database).drop();
});

/** The database URL standing for `dataDir` (a new database for each undefined or ':memory:'). */
export async function databaseUrlFor(dataDir?: string): Promise<string> {
  const key =
    dataDir === undefined || dataDir === ':memory:' ? Symbol('fresh').toString() + Math.random() : dataDir;
  let database = databases.get(key);
  if (!database) {
    database = freshDatabase(testDatabaseUrl());
    databases.set(key, database);
  }
  return (await database).url;
}

/** A store of the engine under test on a data dir (default in memory, or a new database). */
export async function openStore(dataDir = ':memory:'): Promise<SnippetsStore> {
  if (!onPostgres) return createSqliteStore(() => openSnippetsDatabase(dataDir, migrations));
  const url = await databaseUrlFor(dataDir);
  return createPostgresStore(() => openSnippetsPostgres(url, postgresMigrations));
}

/** The arguments that start the built bin on the engine under test, on `dataDir`. */
export async function binArgs(dataDir: string): Promise<string[]> {
  return onPostgres ? ['--database-url', await databaseUrlFor(dataDir)] : ['--data-dir', dataDir];
}

/** A server on a data dir (default in memory) and a real MCP client connected to it. */
export async function connectSnippets(options: ConnectOptions & { dataDir?: string } = {}) {
  const { dataDir = ':memory:', ...connectOptions } = options;
  const store = await openStore(dataDir);
  const definition = createSnippetsServer({ store });
  const client = await connect(definition, connectOptions);
  return { client, definition, store };
}
