import { openPostgres, type PostgresDatabase } from '@shipyard/db';
import { schema } from './schema.js';

export type TicketsPgDatabase = PostgresDatabase<typeof schema>;

/** Open a pool on the database the URL names and bring the `tickets` schema up to date. */
export async function openTicketsPostgres(url: string, migrationsFolder: string): Promise<TicketsPgDatabase> {
  return openPostgres({ url, server: 'tickets', schema, migrations: migrationsFolder });
}
