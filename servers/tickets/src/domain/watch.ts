import { shownOn, type TicketsDb, ticketUris } from './model.js';

/** How often a watching server looks for changes that other processes made to the same database. */
export const WATCH_INTERVAL_MS = 1_000;
/** Tickets read per query while catching up. */
const BATCH = 500;
/** Changed tickets per look whose related pages (parent, links, blocked projects) are looked up too. */
const RELATED_LIMIT = 200;

/**
 * Report what other processes on the same database changed, so this process's subscribers hear of it.
 * Every `everyMs`, when SQLite's `data_version` says another connection has committed, it reads the tickets
 * updated since the last look (every change moves `updated_at`, comments and links included) and reports
 * their ticket, history and project URIs, the pages that show them (parent, linked tickets, projects they
 * block: {@link shownOn}, for the first RELATED_LIMIT of them) and the project list. A change of this
 * process that lands between two looks may be reported again: `resources/updated` only tells a client to
 * read again.
 */
export function watchOtherProcesses(
  db: TicketsDb,
  changed: (...uris: string[]) => void,
  everyMs = WATCH_INTERVAL_MS,
): () => void {
  const sqlite = db.$client;
  const version = () => Number(sqlite.pragma('data_version', { simple: true }));
  // Keyset by (updated_at, id), the order of the updated_at index, so tickets updated in the same
  // millisecond are neither skipped nor read twice across batches.
  const after = sqlite.prepare<[string, number], { id: number; key: string; updatedAt: string }>(
    `SELECT id, key, updated_at AS updatedAt FROM tickets WHERE (updated_at, id) > (?, ?)
     ORDER BY updated_at, id LIMIT ${BATCH}`,
  );
  // The last millisecond seen and its tickets: another process may still commit a ticket with that
  // timestamp and a lower id, so each look reads that millisecond again and skips the ones already seen.
  let since = sqlite.prepare<[], string>('SELECT max(updated_at) FROM tickets').pluck().get() ?? '';
  let seenThen = new Set(
    sqlite.prepare<[string], number>('SELECT id FROM tickets WHERE updated_at = ?').pluck().all(since),
  );
  let seen = version();

  // A look moves its own copy of the mark and keeps it only once it has reported: if it fails halfway
  // (the database closing, say), the next look reads the same changes again.
  const look = () => {
    const now = version();
    if (now === seen) return;
    const uris = new Set(['tickets://projects']);
    let related = 0;
    let at = since;
    let idsAt = new Set(seenThen);
    let from = { updatedAt: since, id: 0 };
    for (;;) {
      const rows = after.all(from.updatedAt, from.id);
      for (const row of rows) {
        if (row.updatedAt !== at) {
          at = row.updatedAt;
          idsAt = new Set();
        } else if (idsAt.has(row.id)) continue;
        idsAt.add(row.id);
        for (const uri of ticketUris(row.key)) uris.add(uri);
        if (related++ < RELATED_LIMIT)
          for (const uri of shownOn(db, row.key, { blocking: true })) uris.add(uri);
      }
      const end = rows.at(-1);
      if (end) from = { updatedAt: end.updatedAt, id: end.id };
      if (rows.length < BATCH) break;
    }
    changed(...uris);
    [seen, since, seenThen] = [now, at, idsAt];
  };
  const timer = setInterval(() => {
    try {
      look();
    } catch {
      // The database is closing or busy: the next look tries again.
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
