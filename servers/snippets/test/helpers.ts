import { fileURLToPath } from 'node:url';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { dataDirDatabases, testEngine } from '@shipyard/testing/postgres';
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

// On PostgreSQL, a data dir stands for a database; every test file's databases are dropped after it.
const databases = dataDirDatabases();
afterAll(databases.dropAll);

/** The database URL standing for `dataDir` (a new database for each undefined or ':memory:'). */
export const databaseUrlFor = (dataDir?: string): Promise<string> => databases.urlFor(dataDir);

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
