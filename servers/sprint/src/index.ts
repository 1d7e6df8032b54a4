#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import { backupDatabase, checkDataFile, chooseEngine } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { createSprintServer } from './server.js';
import { lazySprintPostgresStore, openSprintPostgres } from './store/postgres/open.js';
import { lazySprintStore, openSprintDatabase } from './store/sqlite/open.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to the migrations.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));

// The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
runServer(
  (config) => {
    const engine = chooseEngine(config.databaseUrl);
    return createSprintServer(
      engine.kind === 'postgres'
        ? lazySprintPostgresStore(() => openSprintPostgres(engine.url, postgresMigrations))
        : lazySprintStore(() => openSprintDatabase(config.dataDir, migrations)),
    );
  },
  {
    name: 'sprint',
    version: pkg.version,
    description: pkg.description,
    check: checkDataFile,
    backup: backupDatabase,
  },
);
