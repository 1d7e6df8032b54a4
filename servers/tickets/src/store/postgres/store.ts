/** The PostgreSQL store: the same interface as the SQLite one, over a pool, one transaction per write. */
import { type PostgresDatabase, watchPostgres } from '@shipyard/db';
import type { TicketsStore } from '../types.js';
import { pgAccess } from './access.js';
import { commentsPart } from './comments.js';
import { linksPart } from './links.js';
import { projectsPart } from './projects.js';
import { readsPart } from './reads.js';
import { reportsPart } from './reports.js';
import { searchPart } from './search.js';
import { ticketsPart } from './tickets.js';

export function createPostgresStore(
  database: () => Promise<PostgresDatabase<Record<string, unknown>>>,
): Omit<TicketsStore, 'warmUp' | 'close'> {
  const access = pgAccess(database);
  return {
    ...projectsPart(access),
    ...ticketsPart(access),
    ...readsPart(access),
    ...commentsPart(access),
    ...linksPart(access),
    ...searchPart(access),
    ...reportsPart(access),
    // Every process's writes, this one's among them: resources/updated only tells a client to read again.
    watch: watchPostgres(database),
  };
}
