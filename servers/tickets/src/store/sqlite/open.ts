import { migrate, openDatabase, type ShipyardDatabase } from '@shipyard/db';
import type { TicketsDb } from './model.js';
import { schema } from './schema.js';
import { SqliteTicketsStore } from './store.js';

export type TicketsDatabase = ShipyardDatabase<typeof schema> & { db: TicketsDb };

/** Open (or create) the database and apply the shipped migrations. */
export function openTicketsDatabase(dataDir: string | undefined, migrationsFolder: string): TicketsDatabase {
  const database = openDatabase({ server: 'tickets', dataDir, schema });
  migrate(database, migrationsFolder);
  return database as TicketsDatabase;
}

/**
 * A store over a database opened on first use (or warmUp), and closed with the server. `database` opens
 * it too (for what only SQLite has: its tests and tools).
 */
export function lazyTicketsStore(open: () => TicketsDatabase) {
  let database: TicketsDatabase | undefined;
  const get = () => {
    database ??= open();
    return database;
  };
  const store = new SqliteTicketsStore(() => get().db, {
    warmUp: () => {
      get();
    },
    close: () => database?.close(),
  });
  return {
    store,
    get database() {
      return get();
    },
  };
}
