import { fileURLToPath } from 'node:url';
import { createLogger } from '@shipyard/core';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { dataDirDatabases, testEngine } from '@shipyard/testing/postgres';
import { strToU8, zipSync } from 'fflate';
import { afterAll } from 'vitest';
import { DEFAULT_JUNIT_ARTIFACTS } from '../src/domain/repo.js';
import { octokitApi } from '../src/github/octokit.js';
import { createPipelinesServer } from '../src/server.js';
import { lazyPipelinesPostgresStore, openPipelinesPostgres } from '../src/store/postgres/open.js';
import { openPipelinesDatabase } from '../src/store/sqlite/open.js';
import { SqlitePipelinesStore } from '../src/store/sqlite/store.js';
import type { FakeGitHub } from './fake-github.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));
export const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));

/** A token the tests look for in every answer and log line: it must never show. */
export const TOKEN = 'ghp_SecretTestToken0123456789abcdefABCDEF';
export const REPO = 'octo-org/octo-repo';

export interface PipelinesOptions extends ConnectOptions {
  fake: FakeGitHub;
  repo?: string | undefined;
  reportsDir?: string;
  logCacheBytes?: number;
  token?: string | undefined;
}

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
  if (!onPostgres) {
    const database = openPipelinesDatabase(dataDir, migrations);
    return { store: new SqlitePipelinesStore(() => database), close: async () => database.close() };
  }
  const url = await databaseUrlFor(dataDir);
  return lazyPipelinesPostgresStore(() => openPipelinesPostgres(url, postgresMigrations));
}

/** The arguments that start the built bin on the engine under test, on `dataDir`. */
export async function binArgs(dataDir: string): Promise<string[]> {
  return onPostgres ? ['--database-url', await databaseUrlFor(dataDir)] : ['--data-dir', dataDir];
}

/** A fresh server (in memory, or a new database) talking to the fake GitHub, and a real MCP client connected to it. */
export async function connectPipelines(options: PipelinesOptions) {
  const { fake, repo, reportsDir, logCacheBytes, token, ...connectOptions } = options;
  const logs = connectOptions.logs ?? [];
  const { store, close } = await openStore();
  const log = createLogger('pipelines', { level: 'debug', write: (line) => logs.push(line) });
  const definition = createPipelinesServer({
    store,
    github: octokitApi({
      token: 'token' in options ? token : TOKEN,
      baseUrl: fake.url,
      log,
      retryDelayMs: 5,
      retries: 1,
    }),
    repo: 'repo' in options ? repo : REPO,
    reportsDir,
    junitArtifacts: DEFAULT_JUNIT_ARTIFACTS,
    logCacheBytes: logCacheBytes ?? 50_000_000,
    close,
  });
  const client = await connect(definition, { ...connectOptions, logs });
  return { client, definition, store, logs };
}

export type PipelinesClient = Awaited<ReturnType<typeof connectPipelines>>['client'];

/** An ISO time `minutes` after a fixed day. */
export const at = (minutes: number, day = '2026-03-02') =>
  new Date(Date.parse(`${day}T08:00:00Z`) + minutes * 60_000).toISOString();

/** A zip holding the files given. */
export const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));

/** A JUnit report of one suite: each test passed, or failed with a message. */
export function junit(tests: Record<string, 'passed' | 'failed'>): string {
  const cases = Object.entries(tests)
    .map(([name, status]) =>
      status === 'passed'
        ? `<testcase classname="app" name="${name}" time="0.1"/>`
        : `<testcase classname="app" name="${name}" time="0.1"><failure message="boom">stack</failure></testcase>`,
    )
    .join('');
  return `<?xml version="1.0"?><testsuites><testsuite name="app">${cases}</testsuite></testsuites>`;
}
