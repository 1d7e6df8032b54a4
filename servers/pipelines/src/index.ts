#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runServer, UsageError } from '@shipyard/core';
import { backupDatabase, checkDataFile, chooseEngine } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { checkRepo, DEFAULT_JUNIT_ARTIFACTS, originRepo } from './domain/repo.js';
import { octokitApi } from './github/octokit.js';
import { createPipelinesServer } from './server.js';
import { SETTINGS } from './settings.js';
import { lazyPipelinesPostgresStore, openPipelinesPostgres } from './store/postgres/open.js';
import { openPipelinesDatabase, type PipelinesDatabase } from './store/sqlite/open.js';
import { SqlitePipelinesStore } from './store/sqlite/store.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to the migrations.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));

/** The store of the engine the config names, opened on first use (or warmUp). */
function openStore(config: { databaseUrl?: string | undefined; dataDir?: string | undefined }) {
  const engine = chooseEngine(config.databaseUrl);
  if (engine.kind === 'postgres') {
    return lazyPipelinesPostgresStore(() => openPipelinesPostgres(engine.url, postgresMigrations));
  }
  let database: PipelinesDatabase | undefined;
  const open = () => {
    database ??= openPipelinesDatabase(config.dataDir, migrations);
    return database;
  };
  return { store: new SqlitePipelinesStore(open), warmUp: () => void open(), close: () => database?.close() };
}

/** The origin remote's repo of the current directory, read from .git/config as a file (no git command). */
function repoFromClone(): string | undefined {
  try {
    return originRepo(readFileSync(join(process.cwd(), '.git', 'config'), 'utf8'));
  } catch {
    return undefined;
  }
}

function token(file: string | undefined): string | undefined {
  if (file === undefined) return process.env.GITHUB_TOKEN?.trim() || undefined;
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch (error) {
    throw new UsageError(
      `--token-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

runServer(
  (config, log) => {
    const s = config.settings;
    const repo = s.repo === undefined ? repoFromClone() : checkRepoSetting(s.repo);
    const cacheMb = s['log-cache-mb'] === undefined ? 200 : Number(s['log-cache-mb']);
    if (!Number.isFinite(cacheMb) || cacheMb <= 0) {
      throw new UsageError(`--log-cache-mb must be a positive number, got "${s['log-cache-mb']}"`);
    }
    // The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
    const { store, warmUp, close } = openStore(config);
    return createPipelinesServer({
      store,
      github: octokitApi({
        token: token(s['token-file']),
        baseUrl: process.env.GITHUB_API_URL?.trim() || undefined,
        log,
      }),
      repo,
      reportsDir: s['reports-dir'],
      junitArtifacts:
        s['junit-artifact']
          ?.split(',')
          .map((p: string) => p.trim())
          .filter(Boolean) ?? DEFAULT_JUNIT_ARTIFACTS,
      logCacheBytes: cacheMb * 1_000_000,
      warmUp,
      close,
    });
  },
  {
    name: 'pipelines',
    version: pkg.version,
    description: pkg.description,
    settings: SETTINGS,
    check: checkDataFile,
    backup: backupDatabase,
  },
);

function checkRepoSetting(value: string): string {
  try {
    return checkRepo(value);
  } catch {
    throw new UsageError(`--repo must be owner/name, got "${value}"`);
  }
}
