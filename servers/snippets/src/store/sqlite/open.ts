import { migrate, openDatabase, type ShipyardDatabase } from '@shipyard/db';
import { schema } from './schema.js';

export type SnippetsDatabase = ShipyardDatabase<typeof schema>;

/** Open (or create) the database and apply the shipped migrations. */
export function openSnippetsDatabase(
  dataDir: string | undefined,
  migrationsFolder: string,
): SnippetsDatabase {
  const database = openDatabase({ server: 'snippets', dataDir, schema });
  migrate(database, migrationsFolder);
  return database;
}
