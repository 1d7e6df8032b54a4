import { fileURLToPath } from 'node:url';
import { type ConnectOptions, callOk, connect } from '@shipyard/testing';
import { dataDirDatabases, testEngine } from '@shipyard/testing/postgres';
import { afterAll, expect } from 'vitest';
import { createSprintServer } from '../src/server.js';
import { lazySprintPostgresStore, openSprintPostgres } from '../src/store/postgres/open.js';
import { lazySprintStore, openSprintDatabase } from '../src/store/sqlite/open.js';

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
export async function openStore(dataDir = ':memory:') {
  if (!onPostgres) return lazySprintStore(() => openSprintDatabase(dataDir, migrations));
  const url = await databaseUrlFor(dataDir);
  return lazySprintPostgresStore(() => openSprintPostgres(url, postgresMigrations));
}

/** The arguments that start the built bin on the engine under test, on `dataDir`. */
export async function binArgs(dataDir: string): Promise<string[]> {
  return onPostgres ? ['--database-url', await databaseUrlFor(dataDir)] : ['--data-dir', dataDir];
}

/** A clock the test moves by hand. */
export function clock(start: string) {
  let current = new Date(start);
  return {
    now: () => current,
    set: (iso: string) => {
      current = new Date(iso);
    },
  };
}

/**
 * A server on a fixed clock and a real MCP client connected to it (user "ana"), on the engine under test:
 * fresh (in memory, or a new database) unless `dataDir` is given.
 */
export async function connectSprint(options: ConnectOptions & { at?: string; dataDir?: string } = {}) {
  const { at, dataDir, ...connectOptions } = options;
  const store = await openStore(dataDir);
  const time = clock(at ?? '2026-03-02T09:00:00Z');
  const definition = createSprintServer({ ...store, now: time.now });
  const client = await connect(definition, { user: 'ana', ...connectOptions });
  return { client, definition, store, time };
}

/**
 * How often a subscriber in the writing process hears of one write: on PostgreSQL once from the process
 * itself and once from the notice it hears, as every replica on the database does.
 */
export const reportsPerWrite = onPostgres ? 2 : 1;

/**
 * Subscribe to the sprint list and, on PostgreSQL, wait for the report every subscription gets once the
 * listener holds (notices before it are missed), then forget it: what is reported next comes from writes.
 */
export async function untilWatching(
  client: Pick<SprintClient, 'subscribeResource'>,
  updates: string[],
): Promise<void> {
  await client.subscribeResource({ uri: 'sprint://sprints' });
  if (onPostgres) await expect.poll(() => updates, { timeout: 5_000 }).toContain('sprint://sprints');
  updates.length = 0;
}

export type SprintClient = Awaited<ReturnType<typeof connectSprint>>['client'];

export interface SprintOut {
  key: string;
  status: string;
  version: number;
}
export interface StoryOut {
  key: string;
  version: number;
  sprint: string | null;
  status: string;
  points: number | null;
}

export const createSprint = (client: SprintClient, args: Record<string, unknown> = {}) =>
  callOk<SprintOut>(client, 'create_sprint', {
    name: 'Sprint',
    start_date: '2026-03-02',
    end_date: '2026-03-06',
    ...args,
  });

export const createStory = (client: SprintClient, args: Record<string, unknown> = {}) =>
  callOk<StoryOut>(client, 'create_story', { title: 'Story', ...args });
