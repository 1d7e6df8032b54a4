#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import { backupDatabase, checkDataFile, chooseEngine } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { createSnippetsServer } from './server.js';
import { openSnippetsPostgres } from './store/postgres/open.js';
import { createPostgresStore } from './store/postgres/store.js';
import { openSnippetsDatabase } from './store/sqlite/open.js';
import { createSqliteStore } from './store/sqlite/store.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to the migrations.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));

// The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
runServer(
  (config) => {
    const engine = chooseEngine(config.databaseUrl);
    const store =
      engine.kind === 'postgres'
        ? createPostgresStore(() => openSnippetsPostgres(engine.url, postgresMigrations))
        : createSqliteStore(() => openSnippetsDatabase(config.dataDir, migrations));
    return createSnippetsServer({ store });
  },
  {
    name: 'snippets',
    version: pkg.version,
    description: pkg.description,
    check: checkDataFile,
    backup: backupDatabase,
  },
);
