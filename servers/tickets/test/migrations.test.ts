import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, connect } from '@shipyard/testing';
import type Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { type Priority, priorityRank, type Status } from '../src/domain/model.js';
import { createTicketsServer } from '../src/server.js';
import { indexNewTickets } from '../src/store/sqlite/indexing.js';
import { openTicketsDatabase } from '../src/store/sqlite/open.js';
import { INDEX_STATE_SQL, searchTickets } from '../src/store/sqlite/search.js';
import { migrations, onPostgres, storeOn } from './helpers.js';

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

// SQLite only: the migrations in drizzle/ of files made by earlier versions.
it.skipIf(onPostgres)(
  'rebuilds the search index of an existing file with bidi isolates as separators',
  () => {
    const { data, before } = olderFile(2);
    addTicket(before.sqlite, 1, 'Assigned to \u2068Ana\u2069 by the bot');
    addTicket(before.sqlite, 2, 'Crash on save');
    const found = (sqlite: typeof before.sqlite, word: string) =>
      sqlite
        .prepare('SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH ? ORDER BY 1')
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
  },
);

it.skipIf(onPostgres)(
  'finds the tickets of an existing file by status and priority as they change, and spaces out its U+0001',
  () => {
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
        searchTickets(after.db, { query: 'crash', status: [status], priority: [priority] }).items.map(
          (item) => item.key,
        );
      expect(found('in_progress', 'high')).toEqual(['SHIP-1']);
      expect(found('todo', 'high')).toEqual(['SHIP-2']);
      // U+0001 joined the index's words from 0004 to 0007, so the upgrade made the stored one a space.
      const words = (match: string) =>
        after.sqlite.prepare('SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH ?').pluck().all(match);
      expect(words('"client" AND "broker"')).toEqual([2]);
      expect(after.sqlite.prepare('SELECT description FROM tickets WHERE id = 2').pluck().get()).toBe(
        'Order 35=D 49=CLIENT 56=BROKER rejected',
      );
      after.sqlite.prepare("UPDATE tickets SET status = 'done' WHERE id = 1").run();
      after.sqlite.prepare("UPDATE tickets SET priority = 'low', priority_rank = 3 WHERE id = 2").run();
      expect(found('in_progress', 'high')).toEqual([]);
      expect(found('done', 'high')).toEqual(['SHIP-1']);
      expect(found('todo', 'low')).toEqual(['SHIP-2']);
    } finally {
      after.close();
    }
  },
);

it.skipIf(onPostgres)(
  'keeps the indexed tickets of an existing file when new tickets start to wait for the index',
  () => {
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
  },
);

it.skipIf(onPostgres)(
  'moves status and priority out of the search index of an existing file, and indexes every ticket',
  () => {
    const { data, before } = olderFile(6);
    addTicket(before.sqlite, 1, 'Crash on save', { status: 'in_progress', priority: 'high' });
    addTicket(before.sqlite, 2, 'Crash on save', { status: 'todo', priority: 'high' });
    addTicket(before.sqlite, 3, 'Crash on save', { status: 'done', priority: 'urgent' });
    // A status no version of the workflow had, written by hand.
    addTicket(before.sqlite, 4, 'Crash on save', { status: 'blocked', priority: 'high' });
    // The first two indexed as that version's searches indexed them; the others wait for the index.
    before.sqlite.exec(`INSERT INTO tickets_fts (rowid, title, description, facet)
    SELECT id, title, description, facet FROM tickets WHERE id <= 2; UPDATE tickets_indexed SET upto = 2`);
    before.close();

    const after = openTicketsDatabase(data, migrations);
    try {
      // Every ticket is indexed (the rebuild took the waiting ones too), under its id.
      expect(after.sqlite.prepare('SELECT upto FROM tickets_indexed').pluck().get()).toBe(4);
      expect(
        after.sqlite
          .prepare(`SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH 'crash' ORDER BY 1`)
          .pluck()
          .all(),
      ).toEqual([1, 2, 3, 4]);
      after.sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
      const keys = (status: Status[], priority: Priority[]) =>
        searchTickets(after.db, { query: 'crash', status, priority }).items.map((item) => item.key);
      expect(keys(['todo', 'in_progress'], ['high'])).toEqual(['SHIP-2', 'SHIP-1']);
      expect(keys(['done'], [])).toEqual(['SHIP-3']);
      expect(keys([], [])).toEqual(['SHIP-4', 'SHIP-3', 'SHIP-2', 'SHIP-1']);
      after.sqlite.prepare("UPDATE tickets SET status = 'done' WHERE id = 2").run();
      expect(keys(['done'], [])).toEqual(['SHIP-3', 'SHIP-2']);
      expect(keys(['todo'], ['high'])).toEqual([]);
      after.sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
    } finally {
      after.close();
    }
  },
);

it.skipIf(onPostgres)(
  'gives the search index of a file at 0008 row ids that are ticket ids, and keeps its tickets found',
  () => {
    const { data, before } = olderFile(8);
    addTicket(before.sqlite, 1, 'Crash on save', { status: 'in_progress', priority: 'high' });
    addTicket(before.sqlite, 2, 'Crash on load', { status: 'todo', priority: 'urgent' });
    addTicket(before.sqlite, 3, 'Login is slow', { status: 'done', priority: 'low' });
    // Indexed as that version's searches indexed them, and one more that waits for the index.
    before.sqlite.exec(`INSERT INTO tickets_fts (rowid, title, description)
    SELECT fts_rowid, title, description FROM tickets ORDER BY fts_rowid; UPDATE tickets_indexed SET upto = 3`);
    addTicket(before.sqlite, 4, 'Crash on exit', { status: 'todo', priority: 'high' });
    // At 0008 the index's row ids hold status and priority above the ticket id.
    expect(
      before.sqlite
        .prepare(`SELECT rowid > 4 FROM tickets_fts WHERE tickets_fts MATCH 'crash'`)
        .pluck()
        .all(),
    ).toEqual([1, 1]);
    before.close();

    const after = openTicketsDatabase(data, migrations);
    try {
      const { sqlite, db } = after;
      const columns = sqlite.prepare('SELECT name FROM pragma_table_xinfo(?)').pluck();
      expect(columns.all('tickets')).not.toContain('fts_rowid');
      expect(sqlite.prepare('SELECT upto FROM tickets_indexed').pluck().get()).toBe(4);
      expect(
        sqlite
          .prepare(`SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH 'crash' ORDER BY 1`)
          .pluck()
          .all(),
      ).toEqual([1, 2, 4]);
      sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
      const keys = (options: Parameters<typeof searchTickets>[1]) =>
        searchTickets(db, options).items.map((item) => item.key);
      expect(keys({ query: 'crash' })).toEqual(['SHIP-4', 'SHIP-2', 'SHIP-1']);
      expect(keys({ query: 'crash', status: ['todo', 'in_progress'], priority: ['high'] })).toEqual([
        'SHIP-4',
        'SHIP-1',
      ]);
      expect(keys({ query: 'crash', status: ['todo'], sort: 'priority' })).toEqual(['SHIP-2', 'SHIP-4']);
      expect(keys({ query: 'slow', status: ['done'], priority: ['low'] })).toEqual(['SHIP-3']);
      expect(keys({ status: ['todo'], priority: ['urgent'] })).toEqual(['SHIP-2']);
      // No trigger checks statuses or ids any more: the workflow lives in the code alone (the others keep the
      // people table, 0010).
      const triggers = sqlite
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'tickets' AND name NOT LIKE 'people%' ORDER BY name",
        )
        .pluck()
        .all();
      expect(triggers).toEqual(['tickets_fts_delete', 'tickets_fts_update']);
      // A ticket id past 2^30, which 0007's row ids could not hold, is written, indexed and found.
      sqlite
        .prepare(
          `INSERT INTO tickets (id, project_id, number, key, title, type, status, created_at, updated_at)
         VALUES (?, 1, 5, 'SHIP-5', 'Crash on print', 'bug', 'todo', ?, ?)`,
        )
        .run(2 ** 31, at, at);
      expect(keys({ query: 'print', status: ['todo'] })).toEqual(['SHIP-5']);
      sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();
    } finally {
      after.close();
    }
  },
);

it.skipIf(onPostgres)(
  "finds the last change of a ticket's text through its own index in an existing file",
  () => {
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
  },
);

it.skipIf(onPostgres)('creates and changes a ticket without building a temporary table (0008)', () => {
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
  expect(temporaryTables()).toEqual([0, 0, 0]);
});

it.skipIf(onPostgres)('knows the people of a file at 0009 and keeps its projects active (0010)', async () => {
  const { data, before } = olderFile(9);
  addTicket(before.sqlite, 1, 'Crash on save');
  addTicket(before.sqlite, 2, 'Slow start', { status: 'done' });
  before.sqlite.prepare("UPDATE tickets SET assignee = 'Chloé', reporter = 'dan' WHERE id = 1").run();
  before.sqlite.prepare("UPDATE tickets SET assignee = 'chloé' WHERE id = 2").run();
  before.sqlite.prepare("INSERT INTO comments (ticket_id, author, body) VALUES (1, 'eve', 'seen')").run();
  before.close();
  const after = openTicketsDatabase(data, migrations);
  const client = await connect(createTicketsServer({ store: storeOn(after) }), { user: 'ana' });
  try {
    // One row per name in any ASCII case (the table's NOCASE key): Chloé and chloé are one person.
    expect(after.sqlite.prepare('SELECT name FROM people ORDER BY name').pluck().all()).toEqual([
      expect.stringMatching(/^[Cc]hloé$/),
      'dan',
      'eve',
    ]);
    expect(await callOk(client, 'list_people', {})).toEqual({
      count: 4,
      people: [
        { name: 'ana', open: 0 },
        { name: expect.stringMatching(/^[Cc]hloé$/), open: 1 },
        { name: 'dan', open: 0 },
        { name: 'eve', open: 0 },
      ],
    });
    // A name the file's comments used is known; the project is active until archived.
    const created = await callOk<{ note?: string }>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'New',
      assignee: 'EVE',
    });
    expect(created.note).toBeUndefined();
    expect((await callOk<{ total: number }>(client, 'search_tickets', {})).total).toBe(3);
    await callOk(client, 'update_project', { key: 'SHIP', archived: true });
    expect((await callOk<{ total: number }>(client, 'search_tickets', {})).total).toBe(0);
  } finally {
    await client.close();
  }
});

it.skipIf(onPostgres)(
  'adds the due date index to an existing file, which the due filters and sort then read (0011)',
  () => {
    const { data, before } = olderFile(9);
    addTicket(before.sqlite, 1, 'No date');
    addTicket(before.sqlite, 2, 'Late');
    addTicket(before.sqlite, 3, 'Soon');
    const due = before.sqlite.prepare('UPDATE tickets SET due_date = ? WHERE number = ?');
    due.run('2020-01-01', 2);
    due.run('2999-01-01', 3);
    before.close();
    const after = openTicketsDatabase(data, migrations);
    try {
      const { sqlite, db } = after;
      const index = sqlite
        .prepare("SELECT sql FROM sqlite_master WHERE name = 'tickets_due_idx'")
        .pluck()
        .get();
      expect(index).toContain("ifnull(`due_date`, '~')");
      const keys = (options: Parameters<typeof searchTickets>[1]) =>
        searchTickets(db, options).items.map((item) => item.key);
      expect(keys({ sort: 'due' })).toEqual(['SHIP-2', 'SHIP-3', 'SHIP-1']);
      expect(keys({ overdue: true })).toEqual(['SHIP-2']);
      expect(keys({ due_after: '2021-01-01' })).toEqual(['SHIP-3']);
      // The filter and the order, as search.ts writes them, are answered through the index.
      const plan = sqlite
        .prepare(
          `EXPLAIN QUERY PLAN SELECT id FROM tickets WHERE ifnull(tickets.due_date, '~') <= '2021-01-01' ORDER BY ifnull(tickets.due_date, '~'), tickets.id`,
        )
        .all() as { detail: string }[];
      expect(plan.map((step) => step.detail).join('; ')).toContain('tickets_due_idx');
    } finally {
      after.close();
    }
  },
);
