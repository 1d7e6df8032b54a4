#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import { backupDatabase, checkDataFile, chooseEngine } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { createTicketsServer } from './server.js';
import { lazyTicketsPostgresStore } from './store/postgres/lazy.js';
import { openTicketsPostgres } from './store/postgres/open.js';
import { lazyTicketsStore, openTicketsDatabase } from './store/sqlite/open.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));

// The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
runServer(
  (config) => {
    const engine = chooseEngine(config.databaseUrl);
    return createTicketsServer({
      store:
        engine.kind === 'postgres'
          ? lazyTicketsPostgresStore(() => openTicketsPostgres(engine.url, postgresMigrations)).store
          : lazyTicketsStore(() => openTicketsDatabase(config.dataDir, migrations)).store,
    });
  },
  {
    name: 'tickets',
    version: pkg.version,
    description: pkg.description,
    check: checkDataFile,
    backup: backupDatabase,
  },
);
