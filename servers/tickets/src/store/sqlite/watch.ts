import { labelsUri, opensOrCloses, ticketUris } from '../../domain/model.js';
import { shownOn, type TicketsDb } from './model.js';

/** How often a watching server looks for changes that other processes made to the same database. */
export const WATCH_INTERVAL_MS = 1_000;
/** Rows of each log read per query while catching up. */
const BATCH = 500;
/** Changed tickets per look whose related pages (parents, links, blocked projects) are looked up too. */
const RELATED_LIMIT = 200;
/**
 * URIs per call of `changed`: a catch-up after a large import can change a hundred thousand tickets, and a
 * call spread over that many arguments overflows the stack.
 */
export const REPORT_CHUNK = 1_000;

/** One change as its log has it: a history row, a comment (`field` null), or a new project (its key). */
interface Entry {
  id: number;
  key: string;
  field: string | null;
  old: string | null;
  new: string | null;
  /** Whether the ticket has labels now (history rows only). */
  labelled?: number;
}

/** The last row of each log. */
interface Ends {
  history: number;
  comments: number;
  projects: number;
}

/**
 * Report what other processes on the same database changed, so this process's subscribers hear of it.
 * Every change to a ticket writes a history row (creation, each field, each link, on both tickets) or a
 * comment, and both tables number their rows in commit order, as writers take SQLite's one write lock. So
 * every `everyMs`, when SQLite's `data_version` says another connection has committed, a look reads the rows
 * of both after the last ones it read, and reports for each changed ticket what this process reports for its
 * own changes: its ticket and project URIs, its history URI when it has new history (and its links page for
 * a link), the project list when it was created, closed or reopened, its project's labels page when its
 * labels changed or it was created, closed or reopened with labels, and (for the first RELATED_LIMIT
 * tickets) the pages that show its title or status ({@link shownOn}: parent, linked tickets and their links
 * pages, and when it was closed or reopened the projects it blocks), and a moved
 * ticket's old and new parent; and the page of each new project (creating one writes neither log, so the
 * projects table is read the same way). Nothing depends on clocks, so two changes in one millisecond are two
 * changes. When no other connection has committed, the rows past the last look are this process's own,
 * reported as they were made: the look moves past them. Else its own changes since the last look are
 * reported again with the others' (`resources/updated` only tells a client to read again).
 */
export function watchOtherProcesses(
  db: TicketsDb,
  changed: (...uris: string[]) => void,
  everyMs = WATCH_INTERVAL_MS,
): () => void {
  const sqlite = db.$client;
  const historyAfter = sqlite.prepare<[number, number], Entry>(
    `SELECT h.id, t.key, h.field, h.old_value AS old, h.new_value AS new, t.labels <> '[]' AS labelled
     FROM history h JOIN tickets t ON t.id = h.ticket_id
     WHERE h.id > ? AND h.id <= ? ORDER BY h.id LIMIT ${BATCH}`,
  );
  const commentsAfter = sqlite.prepare<[number, number], Entry>(
    `SELECT c.id, t.key, NULL AS field, NULL AS old, NULL AS new FROM comments c JOIN tickets t ON t.id = c.ticket_id
     WHERE c.id > ? AND c.id <= ? ORDER BY c.id LIMIT ${BATCH}`,
  );
  /** New projects (a project's key is its entry's key): creating one writes no history or comment. */
  const projectsAfter = sqlite.prepare<[number, number], Entry>(
    `SELECT id, key, NULL AS field, NULL AS old, NULL AS new FROM projects
     WHERE id > ? AND id <= ? ORDER BY id LIMIT ${BATCH}`,
  );
  /** Every entry of a log after `from` up to `to`, in batches. */
  const readBetween = (log: typeof historyAfter, from: number, to: number, each: (entry: Entry) => void) => {
    for (;;) {
      const rows = log.all(from, to);
      for (const row of rows) each(row);
      from = rows.at(-1)?.id ?? from;
      if (rows.length < BATCH) return;
    }
  };
  const ends = sqlite.prepare<[], Ends>(
    `SELECT coalesce((SELECT max(id) FROM history), 0) AS history,
            coalesce((SELECT max(id) FROM comments), 0) AS comments,
            coalesce((SELECT max(id) FROM projects), 0) AS projects`,
  );
  /**
   * `data_version` and the logs' ends in one read transaction: the version counts the other connections'
   * commits up to the snapshot the ends come from, so the two agree.
   */
  const state = sqlite.transaction(() => ({
    version: Number(sqlite.pragma('data_version', { simple: true })),
    ends: ends.get() ?? { history: 0, comments: 0, projects: 0 },
  }));
  let { version: seen, ends: marks } = state();

  // A look keeps the new marks only once it has reported: if it fails halfway (the database closing, say),
  // the next look reads the same changes again.
  const look = () => {
    const now = state();
    if (now.version === seen) {
      marks = now.ends;
      return;
    }
    const uris = new Set<string>();
    /** Changed tickets whose pages elsewhere show the change: blocking when their status changed. */
    const related = new Map<string, boolean>();
    const relate = (key: string, blocking: boolean) => {
      if (!related.has(key) && related.size >= RELATED_LIMIT) return;
      related.set(key, blocking || related.get(key) === true);
    };
    readBetween(historyAfter, marks.history, now.ends.history, (entry) => {
      for (const uri of ticketUris(entry.key, { links: entry.field === 'link' })) uris.add(uri);
      const openness = entry.field === 'status' && opensOrCloses(entry.old, entry.new);
      if (entry.field === 'created' || openness) uris.add('tickets://projects');
      // Its labels counted, or the open counts of its labels changed (a new ticket's entry does not say
      // which labels it came with: the ticket's labels now do).
      if (entry.field === 'labels' || (entry.labelled && (entry.field === 'created' || openness)))
        uris.add(labelsUri(entry.key));
      if (entry.field === 'created' || entry.field === 'title') relate(entry.key, false);
      else if (entry.field === 'status') relate(entry.key, openness);
      else if (entry.field === 'parent') {
        for (const parent of [entry.old, entry.new]) if (parent) uris.add(`tickets://${parent}`);
      }
    });
    readBetween(commentsAfter, marks.comments, now.ends.comments, ({ key }) => {
      for (const uri of ticketUris(key, { history: false })) uris.add(uri);
    });
    readBetween(projectsAfter, marks.projects, now.ends.projects, ({ key }) => {
      uris.add('tickets://projects');
      uris.add(`tickets://projects/${key}`);
    });
    for (const [key, blocking] of related) for (const uri of shownOn(db, key, { blocking })) uris.add(uri);
    const all = [...uris];
    for (let i = 0; i < all.length; i += REPORT_CHUNK) changed(...all.slice(i, i + REPORT_CHUNK));
    [seen, marks] = [now.version, now.ends];
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
