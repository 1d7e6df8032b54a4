import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { openTicketsDatabase } from '../src/db/open.js';
import { indexNewTickets } from '../src/domain/indexing.js';
import { PRIORITIES, type Priority, priorityRank, STATUSES, type Status } from '../src/domain/model.js';
import { facetCode, facetRowids, INDEX_STATE_SQL, searchTickets } from '../src/domain/search.js';
import { migrations } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The migrations folder as it was up to (and with) migration `last`. */
function migrationsUpTo(last: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-migrations-'));
  dirs.push(dir);
  cpSync(migrations, dir, { recursive: true });
  const journalPath = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((entry) => entry.idx <= last);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

const at = '2026-01-01T00:00:00.000Z';
/** A hit's ticket id, from its row id in the search index (its status and priority are above 30 bits). */
const TICKET_ID = 'rowid & 0x3FFFFFFF';

/** A data dir with a file made by migrations up to `last`, holding project SHIP; and the dir. */
function olderFile(last: number) {
  const data = mkdtempSync(join(tmpdir(), 'shipyard-tickets-upgrade-'));
  dirs.push(data);
  const before = openTicketsDatabase(data, migrationsUpTo(last));
  before.sqlite
    .prepare("INSERT INTO projects (key, name, last_number, created_at) VALUES ('SHIP', 'S', 2, ?)")
    .run(at);
  return { data, before };
}

/**
 * Insert ticket SHIP-`number` of project 1 (SHIP) with SQL, as a file of any version holds it: in the backlog
 * with no priority unless `status` and `priority` say otherwise (any status: SQL does not check it).
 */
function addTicket(
  sqlite: Database.Database,
  number: number,
  title: string,
  { status = 'backlog', priority = 'none' }: { status?: string; priority?: Priority } = {},
) {
  sqlite
    .prepare(
      `INSERT INTO tickets (project_id, number, key, title, description, type, status, priority, priority_rank,
         created_at, updated_at) VALUES (1, ?, ?, ?, '', 'task', ?, ?, ?, ?, ?)`,
    )
    .run(number, `SHIP-${number}`, title, status, priority, priorityRank(priority), at, at);
}

it('rebuilds the search index of an existing file with bidi isolates as separators', () => {
  const { data, before } = olderFile(2);
  addTicket(before.sqlite, 1, 'Assigned to \u2068Ana\u2069 by the bot');
  addTicket(before.sqlite, 2, 'Crash on save');
  const found = (sqlite: typeof before.sqlite, word: string) =>
    sqlite
      .prepare(`SELECT ${TICKET_ID} FROM tickets_fts WHERE tickets_fts MATCH ? ORDER BY 1`)
      .pluck()
      .all(`"${word}"`);
  expect(found(before.sqlite, 'ana')).toEqual([]);
  before.close();

  const after = openTicketsDatabase(data, migrations);
  try {
    expect(found(after.sqlite, 'ana')).toEqual([1]);
    expect(found(after.sqlite, 'crash')).toEqual([2]);
    // The triggers are back: a new ticket is indexed (once a search comes), with the new separators.
    addTicket(after.sqlite, 3, 'For \u2066Bo\u2069');
    indexNewTickets(after.db);
    expect(found(after.sqlite, 'bo')).toEqual([3]);
  } finally {
    after.close();
  }
});

it('adds each ticket status and priority to the search index of an existing file, and keeps them current', () => {
  const { data, before } = olderFile(3);
  addTicket(before.sqlite, 1, 'Crash on save', { status: 'in_progress', priority: 'high' });
  addTicket(before.sqlite, 2, 'Crash on save', { status: 'todo', priority: 'high' });
  // Text stored by a version that kept control characters: U+0001 separates FIX fields.
  before.sqlite
    .prepare('UPDATE tickets SET description = ? WHERE id = 2')
    .run('Order 35=D\u000149=CLIENT\u000156=BROKER rejected');
  before.close();

  const after = openTicketsDatabase(data, migrations);
  try {
    const found = (status: Status, priority: Priority) =>
      after.db
        .all<{ id: number }>(
          sql`SELECT ${sql.raw(TICKET_ID)} AS id FROM tickets_fts
              WHERE tickets_fts MATCH '"crash"' AND ${facetRowids([status], [priority])} ORDER BY 1`,
        )
        .map((row) => row.id);
    expect(found('in_progress', 'high')).toEqual([1]);
    expect(found('todo', 'high')).toEqual([2]);
    // U+0001 joined the index's words from 0004 to 0007, so the upgrade made the stored one a space.
    const words = (match: string) =>
      after.sqlite
        .prepare(`SELECT ${TICKET_ID} FROM tickets_fts WHERE tickets_fts MATCH ?`)
        .pluck()
        .all(match);
    expect(words('"client" AND "broker"')).toEqual([2]);
    expect(after.sqlite.prepare('SELECT description FROM tickets WHERE id = 2').pluck().get()).toBe(
      'Order 35=D 49=CLIENT 56=BROKER rejected',
    );
    after.sqlite.prepare("UPDATE tickets SET status = 'done' WHERE id = 1").run();
    after.sqlite.prepare("UPDATE tickets SET priority = 'low', priority_rank = 3 WHERE id = 2").run();
    expect(found('in_progress', 'high')).toEqual([]);
    expect(found('done', 'high')).toEqual([1]);
    expect(found('todo', 'low')).toEqual([2]);
  } finally {
    after.close();
  }
});

it('keeps the indexed tickets of an existing file when new tickets start to wait for the index', () => {
  const { data, before } = olderFile(4);
  addTicket(before.sqlite, 1, 'Crash on save');
  addTicket(before.sqlite, 2, 'Crash on load');
  before.close();

  const after = openTicketsDatabase(data, migrations);
  try {
    const waiting = after.sqlite
      .prepare('SELECT id FROM tickets WHERE id > (SELECT upto FROM tickets_indexed) ORDER BY id')
      .pluck();
    const keys = (query: string) => searchTickets(after.db, { query }).items.map((item) => item.key);
    expect(waiting.all()).toEqual([]);
    // An indexed ticket's edit goes to the index at once; a new ticket waits for the next search.
    after.sqlite.prepare("UPDATE tickets SET title = 'Crash on open' WHERE id = 2").run();
    addTicket(after.sqlite, 3, 'Crash on exit');
    expect(waiting.all()).toEqual([3]);
    expect(keys('crash')).toEqual(['SHIP-3', 'SHIP-2', 'SHIP-1']);
    expect(keys('load')).toEqual([]);
    expect(waiting.all()).toEqual([]);
    after.sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
  } finally {
    after.close();
  }
});

it('moves status and priority from a word of the search index to its row ids in an existing file', () => {
  const { data, before } = olderFile(6);
  addTicket(before.sqlite, 1, 'Crash on save', { status: 'in_progress', priority: 'high' });
  addTicket(before.sqlite, 2, 'Crash on save', { status: 'todo', priority: 'high' });
  addTicket(before.sqlite, 3, 'Crash on save', { status: 'done', priority: 'urgent' });
  // A status no version of the workflow had, written by hand.
  addTicket(before.sqlite, 4, 'Crash on save', { status: 'blocked', priority: 'high' });
  // The first two indexed as that version's searches indexed them; the third waits for the index.
  before.sqlite.exec(`INSERT INTO tickets_fts (rowid, title, description, facet)
    SELECT id, title, description, facet FROM tickets WHERE id <= 2; UPDATE tickets_indexed SET upto = 2`);
  before.close();

  const after = openTicketsDatabase(data, migrations);
  try {
    // Every ticket is indexed (the rebuild took the waiting one too), under its status and priority.
    expect(after.sqlite.prepare('SELECT upto FROM tickets_indexed').pluck().get()).toBe(4);
    expect(
      after.sqlite.prepare(`SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH 'crash'`).pluck().all(),
    ).toEqual([
      facetCode('done', 'urgent') * 2 ** 30 + 3,
      facetCode('todo', 'high') * 2 ** 30 + 2,
      facetCode('in_progress', 'high') * 2 ** 30 + 1,
      // The unknown status: past every code a filter asks for.
      31 * 2 ** 30 + 4,
    ]);
    after.sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
    // Built in row id order, the index is one segment (in id order, the row ids above go down: three).
    expect(after.sqlite.prepare('SELECT count(DISTINCT segid) FROM tickets_fts_idx').pluck().get()).toBe(1);
    const keys = (status: Status[], priority: Priority[]) =>
      searchTickets(after.db, { query: 'crash', status, priority }).items.map((item) => item.key);
    expect(keys(['todo', 'in_progress'], ['high'])).toEqual(['SHIP-2', 'SHIP-1']);
    expect(keys(['done'], [])).toEqual(['SHIP-3']);
    expect(keys([], [])).toEqual(['SHIP-4', 'SHIP-3', 'SHIP-2', 'SHIP-1']);
    // From now on, what the row ids cannot hold is refused, by hand too.
    const refused =
      /a ticket needs an id under 2\^30, a status of the workflow and a priority rank of 0 to 4/;
    const write = (statement: string) => () => after.sqlite.prepare(statement).run();
    const insert = (id: number) =>
      write(`INSERT INTO tickets (id, project_id, number, key, title, type, created_at, updated_at)
             VALUES (${id}, 1, ${id}, 'SHIP-${id}', 'Crash', 'bug', '${at}', '${at}')`);
    expect(write("UPDATE tickets SET status = 'blocked' WHERE id = 1")).toThrow(refused);
    expect(write('UPDATE tickets SET priority_rank = 5 WHERE id = 1')).toThrow(refused);
    expect(insert(2 ** 30)).toThrow(refused);
    expect(after.sqlite.prepare('SELECT count(*) FROM tickets').pluck().get()).toBe(4);
    insert(2 ** 30 - 1)();
    // A change of status moves the ticket's row in the index, and the index stays whole.
    after.sqlite.prepare("UPDATE tickets SET status = 'done' WHERE id = 2").run();
    expect(keys(['done'], [])).toEqual(['SHIP-3', 'SHIP-2']);
    expect(keys(['todo'], ['high'])).toEqual([]);
    after.sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
  } finally {
    after.close();
  }
});

it("finds the last change of a ticket's text through its own index in an existing file", () => {
  const { data, before } = olderFile(5);
  before.close();
  const after = openTicketsDatabase(data, migrations);
  try {
    // The statement a relevance page reads its cursor's state with (search.ts INDEX_STATE).
    const plan = after.sqlite.prepare(`EXPLAIN QUERY PLAN SELECT ${INDEX_STATE_SQL}`).all() as {
      detail: string;
    }[];
    expect(plan.map((step) => step.detail).join('; ')).toContain('history_text_edits_idx');
  } finally {
    after.close();
  }
});

it("gives every pair of status and priority the row id facetCode says, in the workflow's order", () => {
  const { sqlite, close } = openTicketsDatabase(':memory:', migrations);
  try {
    sqlite
      .prepare("INSERT INTO projects (key, name, last_number, created_at) VALUES ('SHIP', 'S', 0, ?)")
      .run(at);
    const pairs = PRIORITIES.flatMap((priority) => STATUSES.map((status) => ({ status, priority })));
    for (const [i, pair] of pairs.entries()) addTicket(sqlite, i + 1, 'Pair', pair);
    const rowids = sqlite.prepare('SELECT fts_rowid FROM tickets ORDER BY id').pluck().all();
    expect(rowids).toEqual(pairs.map((pair, i) => facetCode(pair.status, pair.priority) * 2 ** 30 + i + 1));
    // Codes 0 to 29, one for each pair: a priority's statuses together, in the workflow's order.
    expect(pairs.map((pair) => facetCode(pair.status, pair.priority))).toEqual(pairs.map((_, i) => i));
  } finally {
    close();
  }
});

it('creates and changes a ticket without building a temporary table (0008)', () => {
  // A list of more than two values after IN, in a trigger or the generated row id, is a temporary b-tree that
  // SQLite fills each time a statement needs it. EXPLAIN lists the triggers' programs with the statement's.
  const temporaryTables = (last?: number) => {
    const { sqlite, close } = openTicketsDatabase(
      ':memory:',
      last === undefined ? migrations : migrationsUpTo(last),
    );
    try {
      sqlite
        .prepare("INSERT INTO projects (key, name, last_number, created_at) VALUES ('SHIP', 'S', 0, ?)")
        .run(at);
      addTicket(sqlite, 1, 'Crash on save');
      return [
        `INSERT INTO tickets (project_id, number, key, title, type, created_at, updated_at)
           VALUES (1, 2, 'SHIP-2', 'Crash', 'bug', '${at}', '${at}')`,
        "UPDATE tickets SET status = 'todo', updated_at = 'x' WHERE id = 1",
        "UPDATE tickets SET title = 'Crash on load' WHERE id = 1",
        'SELECT fts_rowid FROM tickets WHERE id = 1',
      ].map(
        (statement) =>
          (sqlite.prepare(`EXPLAIN ${statement}`).all() as { opcode: string }[]).filter(
            (op) => op.opcode === 'OpenEphemeral',
          ).length,
      );
    } finally {
      close();
    }
  };
  // Up to 0007, each of them built one.
  expect(temporaryTables(7).every((count) => count > 0)).toBe(true);
  expect(temporaryTables()).toEqual([0, 0, 0, 0]);
});
