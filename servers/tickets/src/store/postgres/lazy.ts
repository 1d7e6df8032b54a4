import type { TicketsStore } from '../types.js';
import type { TicketsPgDatabase } from './open.js';
import { createPostgresStore } from './store.js';

/** A store over a PostgreSQL database opened on first use (or warmUp), and closed with the server. */
export function lazyTicketsPostgresStore(open: () => Promise<TicketsPgDatabase>): { store: TicketsStore } {
  let opening: Promise<TicketsPgDatabase> | undefined;
  const database = () => {
    opening ??= open();
    return opening;
  };
  return {
    store: {
      ...createPostgresStore(database),
      warmUp: async () => {
        await database();
      },
      close: async () => {
        if (opening) await (await opening.catch(() => undefined))?.close();
      },
    },
  };
}
