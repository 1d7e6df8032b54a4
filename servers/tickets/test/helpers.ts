import { fileURLToPath } from 'node:url';
import { type ConnectOptions, callOk, connect } from '@shipyard/testing';
import { dataDirDatabases, testEngine } from '@shipyard/testing/postgres';
import { afterAll, expect } from 'vitest';
import type { Ticket } from '../src/domain/model.js';
import { createTicketsServer } from '../src/server.js';
import { lazyTicketsPostgresStore } from '../src/store/postgres/lazy.js';
import { openTicketsPostgres } from '../src/store/postgres/open.js';
import { lazyTicketsStore, openTicketsDatabase, type TicketsDatabase } from '../src/store/sqlite/open.js';
import { SqliteTicketsStore } from '../src/store/sqlite/store.js';
import type { TicketsStore } from '../src/store/types.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** The engine this run tests (SHIPYARD_TEST_DB). */
export const engine = testEngine();
export const onPostgres = engine === 'postgres';

// On PostgreSQL, a data dir stands for a database; every test file's databases are dropped after it.
const databases = dataDirDatabases();
// A file of many tests makes many databases, each dropped in turn.
afterAll(databases.dropAll, 300_000);

/** The database URL standing for `dataDir` (a new database for each undefined or ':memory:'). */
export const databaseUrlFor = (dataDir?: string): Promise<string> => databases.urlFor(dataDir);

/**
 * A store of the engine under test on a data dir (default in memory, or a new database), and on SQLite its
 * database (for the tests of what only SQLite has: they are skipped on PostgreSQL).
 */
export async function openStore(
  dataDir = ':memory:',
): Promise<{ store: TicketsStore; readonly database: TicketsDatabase }> {
  if (!onPostgres) return lazyTicketsStore(() => openTicketsDatabase(dataDir, migrations));
  const url = await databaseUrlFor(dataDir);
  const { store } = lazyTicketsPostgresStore(() => openTicketsPostgres(url, postgresMigrations));
  return {
    store,
    get database(): TicketsDatabase {
      throw new Error('A SQLite database was asked for on PostgreSQL: mark the test SQLite-only');
    },
  };
}

/** The arguments that start the built bin on the engine under test, on `dataDir`. */
export async function binArgs(dataDir: string): Promise<string[]> {
  return onPostgres ? ['--database-url', await databaseUrlFor(dataDir)] : ['--data-dir', dataDir];
}

/**
 * A fresh tickets server (in memory, or a new database) and a real MCP client connected to it (user "ana"
 * unless given); `database` is SQLite's.
 */
export async function connectTickets(options: ConnectOptions & { dataDir?: string } = {}) {
  const { dataDir, ...connectOptions } = options;
  const opened = await openStore(dataDir);
  const { store } = opened;
  const definition = createTicketsServer({ store });
  const client = await connect(definition, { user: 'ana', ...connectOptions });
  return {
    client,
    definition,
    store,
    get database() {
      return opened.database;
    },
  };
}

export type TicketsClient = Awaited<ReturnType<typeof connectTickets>>['client'];

/** A ticket as get_ticket returns it. */
export type TicketOut = Ticket;

/** Create a project (default SHIP) through the client. */
export async function seedProject(client: TicketsClient, key = 'SHIP', name = 'Shipyard') {
  return callOk(client, 'create_project', { key, name });
}

/** Create a ticket through the client; returns it. */
export async function seedTicket(client: TicketsClient, args: Record<string, unknown>): Promise<TicketOut> {
  return callOk<TicketOut>(client, 'create_ticket', { project: 'SHIP', ...args });
}

/**
 * Insert `count` tickets of project 1 straight into the SQLite database (SHIP-100 on), each linked to
 * ticket 1 as `relates`: a ticket with more links than a tool call would make in a test's time.
 */
export function seedRelatedTickets(database: TicketsDatabase, count: number): void {
  const { sqlite } = database;
  sqlite.transaction(() => {
    const ticket = sqlite.prepare(
      "INSERT INTO tickets (project_id, number, key, title, description, type) VALUES (1, ?, ?, 't', '', 'task')",
    );
    const relates = sqlite.prepare("INSERT INTO links (source_id, type, target_id) VALUES (1, 'relates', ?)");
    for (let n = 100; n < 100 + count; n++) relates.run(ticket.run(n, `SHIP-${n}`).lastInsertRowid);
  })();
}

/** A store over a SQLite database the test opened (and closes). */
export const storeOn = (database: { db: TicketsDatabase['db'] }): TicketsStore =>
  new SqliteTicketsStore(() => database.db);

/**
 * How often a subscriber in the writing process hears of one write: on PostgreSQL once from the process
 * itself and once from the notice it hears, as every replica on the database does.
 */
export const reportsPerWrite = onPostgres ? 2 : 1;

/** Each URI as often as one write is heard of it (reportsPerWrite). */
export const heardPerWrite = (uris: readonly string[]) =>
  uris.flatMap((uri) => Array.from({ length: reportsPerWrite }, () => uri));

/**
 * Subscribe to `uris` and, on PostgreSQL, first wait for the report the first subscription gets once the
 * listener holds (notices before it are missed); then forget what was reported: what comes next is writes'.
 */
export async function untilWatching(
  client: Pick<TicketsClient, 'subscribeResource'>,
  updates: string[],
  uris: readonly string[],
): Promise<void> {
  const [first, ...rest] = uris;
  if (first !== undefined) await client.subscribeResource({ uri: first });
  if (onPostgres && first !== undefined)
    await expect.poll(() => updates, { timeout: 5_000 }).toContain(first);
  for (const uri of rest) await client.subscribeResource({ uri });
  updates.length = 0;
}

/**
 * Creates `perProcess` tickets in SHIP through each client, 4 calls in flight per client so the processes'
 * transactions really interleave; returns each client's keys in the order they were answered.
 */
export async function createFromEach(
  clients: readonly Parameters<typeof callOk>[0][],
  perProcess: number,
): Promise<string[][]> {
  return Promise.all(
    clients.map(async (client, w) => {
      const keys: string[] = [];
      let next = 0;
      const lane = async () => {
        while (next < perProcess) {
          const i = next++;
          const ticket = await callOk<{ key: string }>(client, 'create_ticket', {
            project: 'SHIP',
            title: `Worker ${w} ticket ${i}`,
          });
          keys.push(ticket.key);
        }
      };
      await Promise.all(Array.from({ length: 4 }, lane));
      return keys;
    }),
  );
}
