import { fileURLToPath } from 'node:url';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { open__Pascal__Database } from '../src/db/open.js';
import { create__Pascal__Server } from '../src/server.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** A fresh in-memory server and a real MCP client connected to it. */
export async function connect__Pascal__(options: ConnectOptions = {}) {
  const database = open__Pascal__Database(':memory:', migrations);
  const definition = create__Pascal__Server({ db: database.db, close: () => database.close() });
  const client = await connect(definition, options);
  return { client, definition };
}
