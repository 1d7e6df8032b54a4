import { preparedOnce } from '@shipyard/db';
import type { TicketsDb } from './model.js';

/*
 * The full-text index holds the tickets up to `tickets_indexed.upto` (drizzle/0005_fts_batches.sql). Two
 * things follow for whoever works on it: FTS5's 'integrity-check' (with rank 1) compares the index with every
 * ticket, so it fails while tickets wait (index them first); and a migration that rebuilds the index must set
 * `upto` to the largest ticket id in the same migration, or the next batch indexes those tickets twice.
 */

/**
 * A create whose id is this many past the last indexed ticket indexes the tickets past it, so that a search
 * never has more than this many to index before it answers.
 */
export const INDEX_BATCH = 256;
/**
 * A ticket whose title and description are longer than this is indexed, with those waiting, by the create or
 * edit that makes it so: a batch then holds at most INDEX_BATCH tickets of this size, which stays quick.
 */
export const LONG_TEXT = 1_000;
/**
 * How long a search waits for another process's write lock to index the new tickets. Past it, the search
 * reads the index as it is and says how many tickets it could not search (a write waits the busy timeout).
 */
export const INDEX_WAIT_MS = 200;

function prepareIndexing(db: TicketsDb) {
  const sqlite = db.$client;
  const past = 'FROM tickets WHERE id > (SELECT upto FROM tickets_indexed)';
  const upto = sqlite.prepare<[], number>('SELECT upto FROM tickets_indexed').pluck();
  const waiting = sqlite.prepare<[], number>(`SELECT EXISTS (SELECT 1 ${past})`).pluck();
  const count = sqlite.prepare<[], number>(`SELECT count(*) ${past}`).pluck();
  // In id order: FTS5 starts a new segment of the index whenever a row id comes lower than the one before it.
  const index = sqlite.prepare(
    `INSERT INTO tickets_fts (rowid, title, description) SELECT id, title, description ${past} ORDER BY id`,
  );
  const advance = sqlite.prepare(
    'UPDATE tickets_indexed SET upto = max(upto, coalesce((SELECT max(id) FROM tickets), 0))',
  );
  const batch = sqlite.transaction(() => {
    index.run();
    advance.run();
  });
  return { upto, waiting, count, batch };
}

/**
 * Index the tickets created since the index was last written, in any process: a search's first page and a
 * duplicate check call it right before they read the index, so that they find every ticket created before
 * them. Returns how many tickets are still not indexed: 0, unless another process held the write lock for
 * INDEX_WAIT_MS.
 */
export function indexNewTickets(db: TicketsDb): number {
  const { waiting, count, batch } = preparedOnce(db, prepareIndexing);
  if (!waiting.get()) return 0;
  const sqlite = db.$client;
  const timeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma(`busy_timeout = ${INDEX_WAIT_MS}`);
  try {
    batch.immediate();
    return 0;
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
    return count.get() ?? 0;
  } finally {
    sqlite.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Inside the transaction that created or edited ticket `id`, whose title and description now have `chars`
 * characters: if it waits for the index, index it and the others waiting once they make a batch, or at once
 * when its text is long.
 */
export function indexBatchAt(db: TicketsDb, id: number, chars: number): void {
  const { upto, batch } = preparedOnce(db, prepareIndexing);
  const end = upto.get() ?? id;
  if (id > end && (id - end >= INDEX_BATCH || chars > LONG_TEXT)) batch();
}

/**
 * Says that `left` new tickets (indexNewTickets; in any project, whatever the filters) were left out of a
 * search. The pages after this one go on from it, so the search is to be asked again from its first page.
 */
export const leftOutNote = (left: number) =>
  `${left} new ticket${left === 1 ? '' : 's'} (in any project) could not be searched yet: another process was ` +
  'writing to the same data. Search again in a moment, from the first page, to include them.';
