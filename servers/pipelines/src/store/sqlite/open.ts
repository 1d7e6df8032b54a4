import { migrate, openDatabase } from '@shipyard/db';
import { schema } from './schema.js';

/** Open (or create) the database and apply the shipped migrations. */
export function openPipelinesDatabase(dataDir: string | undefined, migrationsFolder: string) {
  const database = openDatabase({ server: 'pipelines', dataDir, schema });
  migrate(database, migrationsFolder);
  return database;
}

export type PipelinesDatabase = ReturnType<typeof openPipelinesDatabase>;
