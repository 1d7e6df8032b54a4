import { fileURLToPath } from 'node:url';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { openPipelinesDatabase } from '../src/db/open.js';
import { createPipelinesServer } from '../src/server.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** A fresh in-memory server and a real MCP client connected to it. */
export async function connectPipelines(options: ConnectOptions = {}) {
  const database = openPipelinesDatabase(':memory:', migrations);
  const definition = createPipelinesServer({ db: database.db, close: () => database.close() });
  const client = await connect(definition, options);
  return { client, definition };
}
