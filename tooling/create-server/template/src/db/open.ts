import { migrate, openDatabase } from '@shipyard/db';
import type { __Pascal__Db } from '../domain/items.js';
import { schema } from './schema.js';

/** Open (or create) the database and apply the shipped migrations. */
export function open__Pascal__Database(dataDir: string | undefined, migrationsFolder: string) {
  const database = openDatabase({ server: '__name__', dataDir, schema });
  migrate(database, migrationsFolder);
  return database as typeof database & { db: __Pascal__Db };
}
