import { migrate, openDatabase, type ShipyardDatabase } from '@shipyard/db';
import { schema } from './schema.js';
import { SqliteSprintStore } from './store.js';

export type SprintDatabase = ShipyardDatabase<typeof schema>;

/** Open (or create) the database and apply the shipped migrations. */
export function openSprintDatabase(dataDir: string | undefined, migrationsFolder: string): SprintDatabase {
  const database = openDatabase({ server: 'sprint', dataDir, schema });
  migrate(database, migrationsFolder);
  return database;
}

/** A store over a database opened on first use (or warmUp), and closed with the server. */
export function lazySprintStore(open: () => SprintDatabase) {
  let database: SprintDatabase | undefined;
  const get = () => {
    database ??= open();
    return database;
  };
  return {
    store: new SqliteSprintStore(get),
    warmUp: () => {
      get();
    },
    close: () => database?.close(),
  };
}
