#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import { backupDatabase, checkDataFile, lazyDatabase } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import { open__Pascal__Database } from './db/open.js';
import { create__Pascal__Server } from './server.js';

// dist/index.cjs and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));

// The database opens after the first client has initialized (warmUp), not before `initialize` is answered.
runServer(
  (config) => create__Pascal__Server(lazyDatabase(() => open__Pascal__Database(config.dataDir, migrations))),
  {
    name: '__name__',
    version: pkg.version,
    description: pkg.description,
    check: checkDataFile,
    backup: backupDatabase,
  },
);
