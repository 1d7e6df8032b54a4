import { shownOn, type TicketsDb, ticketUris } from './model.js';

/** How often a watching server looks for changes that other processes made to the same database. */
export const WATCH_INTERVAL_MS = 1_000;
/** Rows of each log read per query while catching up. */
const BATCH = 500;
/** Changed tickets per look whose related pages (parents, links, blocked projects) are looked up too. */
const RELATED_LIMIT = 200;
/**
 * URIs per call of `changed`: a catch-up after a large import can change a hundred thousand tickets, and a
 * call spread over that many arguments overflows the stack (from about 125,000 in Node 20).
 */
export const REPORT_CHUNK = 1_000;

/** One change as its log has it: a history row, a comment (`field` null), or a new project (its key). */
interface Entry {
  id: number;
  key: string;
  field: string | null;
  old: string | null;
}

/**
 * Report what other processes on the same database changed, so this process's subscribers hear of it.
 * Every change to a ticket writes a history row (creation, each field, each link, on both tickets) or a
 * comment, and both tables number their rows in commit order, as writers take SQLite's one write lock. So
 * every `everyMs`, when SQLite's `data_version` says another connection has committed, a look reads the rows
 * of both after the last ones it read, and reports the project list and for each changed ticket: its ticket
 * and project URIs, its history URI when it has new history, and (for the first RELATED_LIMIT tickets with
 * new history) the pages that show it ({@link shownOn}: parent, linked tickets, projects it blocks) and the
 * parent it was moved away from; and the page of each new project (creating one writes neither log, so the
 * projects table is read the same way). Nothing depends on clocks, so two changes in one millisecond are two
 * changes. A change of this process that lands between two looks is reported again: `resources/updated` only
 * tells a client to read again.
 */
export function watchOtherProcesses(
  db: TicketsDb,
  changed: (...uris: string[]) => void,
  everyMs = WATCH_INTERVAL_MS,
): () => void {
  const sqlite = db.$client;
  const version = () => Number(sqlite.pragma('data_version', { simple: true }));
  const historyAfter = sqlite.prepare<[number], Entry>(
    `SELECT h.id, t.key, h.field, h.old_value AS old FROM history h JOIN tickets t ON t.id = h.ticket_id
     WHERE h.id > ? ORDER BY h.id LIMIT ${BATCH}`,
  );
  const commentsAfter = sqlite.prepare<[number], Entry>(
    `SELECT c.id, t.key, NULL AS field, NULL AS old FROM comments c JOIN tickets t ON t.id = c.ticket_id
     WHERE c.id > ? ORDER BY c.id LIMIT ${BATCH}`,
  );
  /** New projects (a project's key is its entry's key): creating one writes no history or comment. */
  const projectsAfter = sqlite.prepare<[number], Entry>(
    `SELECT id, key, NULL AS field, NULL AS old FROM projects WHERE id > ? ORDER BY id LIMIT ${BATCH}`,
  );
  /** Every entry of a log after `id`, in batches; returns the last id read. */
  const readAfter = (log: typeof historyAfter, id: number, each: (entry: Entry) => void) => {
    for (;;) {
      const rows = log.all(id);
      for (const row of rows) each(row);
      id = rows.at(-1)?.id ?? id;
      if (rows.length < BATCH) return id;
    }
  };
  // The version first, then the marks (in one statement, one snapshot): a commit that lands in between moves
  // the version past `seen`, so the first look reads after the marks and reports it.
  let seen = version();
  let marks = sqlite
    .prepare<[], { history: number; comments: number; projects: number }>(
      `SELECT coalesce((SELECT max(id) FROM history), 0) AS history,
              coalesce((SELECT max(id) FROM comments), 0) AS comments,
              coalesce((SELECT max(id) FROM projects), 0) AS projects`,
    )
    .get() ?? { history: 0, comments: 0, projects: 0 };

  // A look keeps the new marks only once it has reported: if it fails halfway (the database closing, say),
  // the next look reads the same changes again.
  const look = () => {
    const now = version();
    if (now === seen) return;
    const uris = new Set(['tickets://projects']);
    const related = new Set<string>();
    const history = readAfter(historyAfter, marks.history, ({ key, field, old }) => {
      for (const uri of ticketUris(key)) uris.add(uri);
      if (!related.has(key) && related.size >= RELATED_LIMIT) return;
      related.add(key);
      if (field === 'parent' && old) uris.add(`tickets://${old}`);
    });
    const comments = readAfter(commentsAfter, marks.comments, ({ key }) => {
      for (const uri of ticketUris(key, { history: false })) uris.add(uri);
    });
    const projects = readAfter(projectsAfter, marks.projects, ({ key }) => {
      uris.add(`tickets://projects/${key}`);
    });
    for (const key of related) for (const uri of shownOn(db, key, { blocking: true })) uris.add(uri);
    const all = [...uris];
    for (let i = 0; i < all.length; i += REPORT_CHUNK) changed(...all.slice(i, i + REPORT_CHUNK));
    [seen, marks] = [now, { history, comments, projects }];
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
