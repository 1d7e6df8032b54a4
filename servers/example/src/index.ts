#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import { backupDatabase, checkDataFile, lazyDatabase } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { openExampleDatabase } from './db/open.js';
import { createExampleServer } from './server.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));

// The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
runServer(
  (config) => createExampleServer(lazyDatabase(() => openExampleDatabase(config.dataDir, migrations))),
  {
    name: 'example',
    version: pkg.version,
    description: pkg.description,
    check: checkDataFile,
    backup: backupDatabase,
  },
);
