import { preparedOnce } from '@shipyard/db';
import type { TicketsDb } from './model.js';

/**
 * The full-text index is written in batches (drizzle/0005_fts_batches.sql): a create whose id is this many
 * past the last indexed ticket indexes the tickets past it, so that a search never has more than this many to
 * index before it answers (0.5 ms for 256 short tickets here, about 3 ms with descriptions).
 */
export const INDEX_BATCH = 256;

function prepareIndexing(db: TicketsDb) {
  const sqlite = db.$client;
  const past = 'FROM tickets WHERE id > (SELECT upto FROM tickets_indexed)';
  const upto = sqlite.prepare<[], number>('SELECT upto FROM tickets_indexed').pluck();
  const waiting = sqlite.prepare<[], number>(`SELECT EXISTS (SELECT 1 ${past})`).pluck();
  const index = sqlite.prepare(
    `INSERT INTO tickets_fts (rowid, title, description, facet) SELECT id, title, description, facet ${past}`,
  );
  const advance = sqlite.prepare(
    'UPDATE tickets_indexed SET upto = max(upto, coalesce((SELECT max(id) FROM tickets), 0))',
  );
  const batch = sqlite.transaction(() => {
    index.run();
    advance.run();
  });
  return { upto, waiting, batch };
}

/**
 * Index the tickets created since the index was last written, in any process: a search calls it before it
 * reads the index, so that it finds every ticket created before it started.
 */
export function indexNewTickets(db: TicketsDb): void {
  const { waiting, batch } = preparedOnce(db, prepareIndexing);
  if (waiting.get()) batch.immediate();
}

/** Inside the transaction that created ticket `id`: index the new tickets once they make a batch. */
export function indexBatchAt(db: TicketsDb, id: number): void {
  const { upto, batch } = preparedOnce(db, prepareIndexing);
  if (id - (upto.get() ?? id) >= INDEX_BATCH) batch();
}
