import { openPostgres, type PostgresDatabase } from '@shipyard/db';
import { schema } from './schema.js';

export type SnippetsPgDatabase = PostgresDatabase<typeof schema>;

/** Open a pool on the database the URL names and bring the `snippets` schema up to date. */
export async function openSnippetsPostgres(
  url: string,
  migrationsFolder: string,
): Promise<SnippetsPgDatabase> {
  return openPostgres({ url, server: 'snippets', schema, migrations: migrationsFolder });
}
