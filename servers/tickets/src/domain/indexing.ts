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
 * edit that makes it so: a batch then holds at most INDEX_BATCH tickets of this size (2.6 ms to index here,
 * where 255 tickets of 50,000 characters took 600 ms).
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
  if (!waitingAtMost(db, INDEX_WAIT_MS, () => batch.immediate())) return count.get() ?? 0;
  compactSoon(db);
  return 0;
}

/**
 * Run `write` (which takes the write lock) waiting at most `ms` for another process's lock: false when it
 * waited that long and did nothing.
 */
function waitingAtMost(db: TicketsDb, ms: number, write: () => void): boolean {
  const sqlite = db.$client;
  const timeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  sqlite.pragma(`busy_timeout = ${ms}`);
  try {
    write();
    return true;
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
    return false;
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
  if (id > end && (id - end >= INDEX_BATCH || chars > LONG_TEXT)) {
    batch();
    compactSoon(db);
  }
}

/*
 * FTS5 writes each transaction's additions to the index as a segment of its own, and merges segments only
 * when four of a size have gathered (its `automerge`): an index written batch by batch is in about ten at
 * 100,000 tickets. A search reads, and merges, each word's hits from every segment that holds the word, and
 * bm25 does so once more to count them. Folded into one segment, the index answers a search's main
 * statement in about a quarter less time than in the seven segments of one rebuild, and a third less than in
 * ten (tooling/bench/RESULTS.md, twentieth session). So once batches have gathered, the server folds the
 * index in the background: a small step at a time, each a transaction of its own, so that a call waits for
 * one step at most, and another process's write too.
 */

/**
 * Segments from which the index is folded. A second one costs a search little (2% with one of a batch's
 * size beside the rest, against 14% with three more and 31% with nine more), and folding rewrites the
 * whole index (about 0.4 s at 100,000 tickets), so one batch or long ticket does not start it alone.
 */
export const COMPACT_FROM = 3;
/**
 * Pages of merge work a step does at most. At 100,000 tickets, most steps take 4-10 ms, one that checkpoints
 * the WAL 20-30 ms, and the first up to 60 ms; the fold, 36 steps, 0.4 s.
 */
export const COMPACT_PAGES = 128;
/** The fold starts this long after the last batch this process indexed (a bulk import goes first). */
export const COMPACT_DELAY_MS = 1_000;
/** The pause between two steps, in which calls are answered. */
export const COMPACT_GAP_MS = 25;

function prepareCompaction(db: TicketsDb) {
  const sqlite = db.$client;
  // Every segment has entries in %_idx (its first leaf page's, and one for each later page that starts a
  // term): about 1,400 rows at 100,000 tickets.
  const segments = sqlite.prepare<[], number>('SELECT count(DISTINCT segid) FROM tickets_fts_idx').pluck();
  const changes = sqlite.prepare<[], number>('SELECT total_changes()').pluck();
  // A negative merge works towards one segment, whatever their sizes, at most that many pages a command.
  const merge = sqlite.prepare(
    `INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('merge', -${COMPACT_PAGES})`,
  );
  /** Whether the step merged anything: a merge with nothing left to do changes one row at most (FTS5). */
  const step = sqlite.transaction(() => {
    const before = changes.get() ?? 0;
    merge.run();
    return (changes.get() ?? 0) - before >= 2;
  });
  return { segments, step };
}

/**
 * One step of folding the index's segments into one: 'more' when segments are left to fold, 'done' when
 * fewer than COMPACT_FROM are left, 'busy' when another process held the write lock (nothing was done).
 */
export function compactIndexStep(db: TicketsDb): 'more' | 'done' | 'busy' {
  const { segments, step } = preparedOnce(db, prepareCompaction);
  if ((segments.get() ?? 0) < COMPACT_FROM) return 'done';
  let merged = false;
  const stepped = waitingAtMost(db, 0, () => {
    merged = step.immediate();
  });
  if (!stepped) return 'busy';
  return merged ? 'more' : 'done';
}

/** The pending step of each database's fold. */
const compactions = new WeakMap<TicketsDb, { timer?: NodeJS.Timeout }>();

/**
 * Fold the index into one segment in the background (compactIndexStep), starting COMPACT_DELAY_MS from now,
 * or from a later call: each call puts the start off. Steps run COMPACT_GAP_MS apart until it is done, or
 * COMPACT_DELAY_MS apart while another process writes. The timers keep no process alive, and stop once the
 * database is closed. A step that fails otherwise stops the fold with a warning on stderr: the index stays
 * as the steps before left it (each step is a transaction), and the next batch starts the fold again.
 */
export function compactSoon(db: TicketsDb): void {
  const pending = compactions.get(db) ?? {};
  compactions.set(db, pending);
  const after = (ms: number) => {
    pending.timer = setTimeout(step, ms);
    pending.timer.unref();
  };
  const step = () => {
    pending.timer = undefined;
    if (!db.$client.open) return;
    try {
      const result = compactIndexStep(db);
      if (result !== 'done') after(result === 'more' ? COMPACT_GAP_MS : COMPACT_DELAY_MS);
    } catch (error) {
      process.emitWarning(`tickets: stopped folding the search index: ${(error as Error).message}`);
    }
  };
  clearTimeout(pending.timer);
  after(COMPACT_DELAY_MS);
}

/**
 * Says that `left` new tickets (indexNewTickets; in any project, whatever the filters) were left out of a
 * search. The pages after this one go on from it, so the search is to be asked again from its first page.
 */
export const leftOutNote = (left: number) =>
  `${left} new ticket${left === 1 ? '' : 's'} (in any project) could not be searched yet: another process was ` +
  'writing to the same data. Search again in a moment, from the first page, to include them.';
