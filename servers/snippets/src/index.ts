#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import { backupDatabase, checkDataFile } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { createSnippetsServer } from './server.js';
import { openSnippetsDatabase } from './store/sqlite/open.js';
import { createSqliteStore } from './store/sqlite/store.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));

// The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
runServer(
  (config) =>
    createSnippetsServer({
      store: createSqliteStore(() => openSnippetsDatabase(config.dataDir, migrations)),
    }),
  {
    name: 'snippets',
    version: pkg.version,
    description: pkg.description,
    check: checkDataFile,
    backup: backupDatabase,
  },
);
