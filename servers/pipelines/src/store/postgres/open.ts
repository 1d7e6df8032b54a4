import { openPostgres, type PostgresDatabase } from '@shipyard/db';
import type { PipelinesStore } from '../types.js';
import { schema } from './schema.js';
import { PostgresPipelinesStore } from './store.js';

export type PipelinesPgDatabase = PostgresDatabase<typeof schema>;

/** Open a pool on the database the URL names and bring the `pipelines` schema up to date. */
export async function openPipelinesPostgres(
  url: string,
  migrationsFolder: string,
): Promise<PipelinesPgDatabase> {
  return openPostgres({ url, server: 'pipelines', schema, migrations: migrationsFolder });
}

/** A store over a database opened on first use (or warmUp), and closed with the server. */
export function lazyPipelinesPostgresStore(open: () => Promise<PipelinesPgDatabase>): {
  store: PipelinesStore;
  warmUp: () => Promise<void>;
  close: () => Promise<void>;
} {
  let opening: Promise<PipelinesPgDatabase> | undefined;
  const database = () => {
    opening ??= open();
    return opening;
  };
  return {
    store: new PostgresPipelinesStore(database),
    warmUp: async () => {
      await database();
    },
    close: async () => {
      if (opening) await (await opening.catch(() => undefined))?.close();
    },
  };
}
