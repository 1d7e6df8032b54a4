#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import pkg from '../package.json' with { type: 'json' };
import { openExampleDatabase } from './db/open.js';
import { createExampleServer } from './server.js';

// dist/index.js and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));

await runServer(
  (config) => {
    const database = openExampleDatabase(config.dataDir, migrations);
    return createExampleServer({ db: database.db, close: () => database.close() });
  },
  { name: 'example', version: pkg.version, description: pkg.description },
);
