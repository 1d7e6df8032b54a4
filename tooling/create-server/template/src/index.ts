#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import pkg from '../package.json' with { type: 'json' };
import { open__Pascal__Database } from './db/open.js';
import { create__Pascal__Server } from './server.js';

// dist/index.js and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));

await runServer(
  (config) => {
    const database = open__Pascal__Database(config.dataDir, migrations);
    return create__Pascal__Server({ db: database.db, close: () => database.close() });
  },
  { name: '__name__', version: pkg.version, description: pkg.description },
);
