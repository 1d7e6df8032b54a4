import { migrate, openDatabase } from '@shipyard/db';
import type { TicketsDb } from '../domain/model.js';
import { schema } from './schema.js';

/** Open (or create) the database and apply the shipped migrations. */
export function openTicketsDatabase(dataDir: string | undefined, migrationsFolder: string) {
  const database = openDatabase({ server: 'tickets', dataDir, schema });
  migrate(database, migrationsFolder);
  return database as typeof database & { db: TicketsDb };
}
