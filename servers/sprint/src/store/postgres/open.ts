import { openPostgres, type PostgresDatabase } from '@shipyard/db';
import type { SprintStore } from '../types.js';
import { schema } from './schema.js';
import { createPostgresStore } from './store.js';

export type SprintPgDatabase = PostgresDatabase<typeof schema>;

/** Open a pool on the database the URL names and bring the `sprint` schema up to date. */
export async function openSprintPostgres(url: string, migrationsFolder: string): Promise<SprintPgDatabase> {
  return openPostgres({ url, server: 'sprint', schema, migrations: migrationsFolder });
}

/** A store over a database opened on first use (or warmUp), and closed with the server. */
export function lazySprintPostgresStore(open: () => Promise<SprintPgDatabase>): {
  store: SprintStore;
  warmUp: () => Promise<void>;
  close: () => Promise<void>;
} {
  let opening: Promise<SprintPgDatabase> | undefined;
  const database = () => {
    opening ??= open();
    return opening;
  };
  return {
    store: createPostgresStore(database),
    warmUp: async () => {
      await database();
    },
    close: async () => {
      if (opening) await (await opening.catch(() => undefined))?.close();
    },
  };
}
