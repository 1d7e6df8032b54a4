#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runServer } from '@shipyard/core';
import pkg from '../package.json' with { type: 'json' };
import { openTicketsDatabase } from './db/open.js';
import { createTicketsServer } from './server.js';

// dist/index.js and src/index.ts both sit one level below the package root, next to drizzle/.
const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));

await runServer(
  (config) => {
    const database = openTicketsDatabase(config.dataDir, migrations);
    return createTicketsServer({ db: database.db, close: () => database.close() });
  },
  { name: 'tickets', version: pkg.version, description: pkg.description },
);
