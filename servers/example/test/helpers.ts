import { fileURLToPath } from 'node:url';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { openExampleDatabase } from '../src/db/open.js';
import { createExampleServer } from '../src/server.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** A fresh in-memory example server and a real MCP client connected to it. */
export async function connectExample(options: ConnectOptions = {}) {
  const database = openExampleDatabase(':memory:', migrations);
  const definition = createExampleServer({ db: database.db, close: () => database.close() });
  const client = await connect(definition, options);
  return { client, definition, database };
}
