import { fileURLToPath } from 'node:url';
import { type ConnectOptions, connect } from '@shipyard/testing';
import { createSnippetsServer } from '../src/server.js';
import { openSnippetsDatabase } from '../src/store/sqlite/open.js';
import { createSqliteStore } from '../src/store/sqlite/store.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** A server on a data dir (default in memory) and a real MCP client connected to it. */
export async function connectSnippets(options: ConnectOptions & { dataDir?: string } = {}) {
  const { dataDir = ':memory:', ...connectOptions } = options;
  const store = createSqliteStore(() => openSnippetsDatabase(dataDir, migrations));
  const definition = createSnippetsServer({ store });
  const client = await connect(definition, connectOptions);
  return { client, definition, store };
}
