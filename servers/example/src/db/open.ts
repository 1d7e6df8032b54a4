import { migrate, openDatabase } from '@shipyard/db';
import type { NotesDb } from '../domain/notes.js';
import { schema } from './schema.js';

/** Open (or create) the example database and apply the shipped migrations. */
export function openExampleDatabase(dataDir: string | undefined, migrationsFolder: string) {
  const database = openDatabase({ server: 'example', dataDir, schema });
  migrate(database, migrationsFolder);
  return database as typeof database & { db: NotesDb };
}
