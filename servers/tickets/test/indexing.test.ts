import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callError, callOk } from '@shipyard/testing';
import type Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { INDEX_BATCH, INDEX_WAIT_MS, LONG_TEXT, leftOutNote } from '../src/store/sqlite/indexing.js';
import { openTicketsDatabase } from '../src/store/sqlite/open.js';
import { createProject } from '../src/store/sqlite/projects.js';
import { findSimilarTickets, searchTickets } from '../src/store/sqlite/search.js';
import { createTicket } from '../src/store/sqlite/tickets.js';
import {
  connectTickets,
  migrations,
  onPostgres,
  seedProject,
  seedTicket,
  type TicketsClient,
} from './helpers.js';

// New tickets enter the full-text index in batches (drizzle/0005_fts_batches.sql).

const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The tickets not in the full-text index yet. */
const waiting = (sqlite: Database.Database) =>
  sqlite
    .prepare('SELECT id FROM tickets WHERE id > (SELECT upto FROM tickets_indexed) ORDER BY id')
    .pluck()
    .all();

/**
 * Throws unless the full-text index holds exactly the tickets' text as it is now (FTS5's own check, which
 * compares every ticket: only while none waits).
 */
const checkIndex = (sqlite: Database.Database) =>
  sqlite.prepare("INSERT INTO tickets_fts (tickets_fts, rank) VALUES ('integrity-check', 1)").run();

async function connected() {
  const connection = await connectTickets();
  closers.push(() => connection.client.close());
  await seedProject(connection.client);
  return connection;
}

/** Two connections to one new file, as two server processes have, with project SHIP. */
function twoProcesses() {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-indexing-'));
  dirs.push(dir);
  const both = [openTicketsDatabase(dir, migrations), openTicketsDatabase(dir, migrations)] as const;
  closers.push(both[0].close, both[1].close);
  createProject(both[0].db, { key: 'SHIP', name: 'Shipyard' });
  return both;
}

const keys = async (client: TicketsClient, args: Record<string, unknown>) =>
  (await callOk<{ items: { key: string }[] }>(client, 'search_tickets', args)).items.map((item) => item.key);

// SQLite only: how the FTS5 index of src/store/sqlite takes new tickets in batches.
it.skipIf(onPostgres)(
  'the index check used below fails when the index and the tickets disagree',
  async () => {
    const { client, database } = await connected();
    await seedTicket(client, { title: 'Crash on save' });
    await keys(client, { query: 'crash' });
    checkIndex(database.sqlite);
    database.sqlite.exec('DROP TRIGGER tickets_fts_update');
    database.sqlite.prepare("UPDATE tickets SET title = 'Login is slow' WHERE id = 1").run();
    expect(() => checkIndex(database.sqlite)).toThrow(/checksum mismatch|malformed/);
  },
);

it.skipIf(onPostgres)(
  'indexes new tickets as they are now before a search reads the index, and edits of indexed ones at once',
  async () => {
    const { client, database } = await connected();
    await seedTicket(client, { title: 'Crash on save', priority: 'high' });
    await seedTicket(client, { title: 'Login is slow' });
    expect(waiting(database.sqlite)).toEqual([1, 2]);
    // Edits of a ticket that waits leave the index alone: it is indexed as it is when a search comes.
    await callOk(client, 'update_ticket', { key: 'SHIP-1', title: 'Crash on export' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'todo' });
    expect(waiting(database.sqlite)).toEqual([1, 2]);
    expect(await keys(client, { query: 'crash export', status: ['todo'], priority: ['high'] })).toEqual([
      'SHIP-1',
    ]);
    expect(waiting(database.sqlite)).toEqual([]);
    expect(await keys(client, { query: 'save' })).toEqual([]);
    expect(await keys(client, { query: 'slow' })).toEqual(['SHIP-2']);
    checkIndex(database.sqlite);

    await callOk(client, 'update_ticket', { key: 'SHIP-1', title: 'Crash on import' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'in_progress' });
    expect(waiting(database.sqlite)).toEqual([]);
    checkIndex(database.sqlite);
    expect(await keys(client, { query: 'import', status: ['in_progress'], priority: ['high'] })).toEqual([
      'SHIP-1',
    ]);
    expect(await keys(client, { query: 'export' })).toEqual([]);

    // No tool deletes a ticket, but SQL can: the index stays whole whether the ticket was indexed or waited.
    await seedTicket(client, { title: 'Crash on exit' });
    expect(waiting(database.sqlite)).toEqual([3]);
    database.sqlite.prepare('DELETE FROM tickets WHERE id IN (2, 3)').run();
    expect(waiting(database.sqlite)).toEqual([]);
    checkIndex(database.sqlite);
    expect(await keys(client, { query: 'crash' })).toEqual(['SHIP-1']);
  },
);

it.skipIf(onPostgres)('finds a waiting ticket as a duplicate', async () => {
  const { client, database } = await connected();
  await seedTicket(client, { title: 'Export to CSV drops the header row' });
  expect(waiting(database.sqlite)).toEqual([1]);
  const similar = await callOk<{ items: { key: string }[] }>(client, 'find_similar_tickets', {
    title: 'CSV export drops the header row',
  });
  expect(similar.items.map((item) => item.key)).toEqual(['SHIP-1']);
  expect(waiting(database.sqlite)).toEqual([]);
});

it.skipIf(onPostgres)(`indexes the waiting tickets in the create that makes them ${INDEX_BATCH}`, () => {
  const { db, sqlite, close } = openTicketsDatabase(':memory:', migrations);
  closers.push(close);
  createProject(db, { key: 'SHIP', name: 'Shipyard' });
  for (let n = 1; n < INDEX_BATCH; n++) createTicket(db, { project: 'SHIP', title: `Ticket ${n}` });
  expect(waiting(sqlite)).toHaveLength(INDEX_BATCH - 1);
  createTicket(db, { project: 'SHIP', title: 'The last one' });
  expect(waiting(sqlite)).toEqual([]);
  checkIndex(sqlite);
  expect(sqlite.prepare("SELECT rowid FROM tickets_fts WHERE tickets_fts MATCH 'ticket'").all()).toHaveLength(
    INDEX_BATCH - 1,
  );
});

it.skipIf(onPostgres)('writes a batch of new tickets as one segment of the index', async () => {
  const { client, database } = await connected();
  const segments = () =>
    database.sqlite.prepare('SELECT count(DISTINCT segid) FROM tickets_fts_idx').pluck().get() as number;
  await seedTicket(client, { title: 'First crash' });
  await keys(client, { query: 'crash' });
  const before = segments();
  const priorities = ['low', 'urgent', 'none', 'high', 'medium'];
  for (let n = 0; n < 20; n++) await seedTicket(client, { title: `Crash ${n}`, priority: priorities[n % 5] });
  expect(await keys(client, { query: 'crash', limit: 50 })).toHaveLength(21);
  // FTS5 starts a segment whenever a row id comes lower than the one before it in a transaction.
  expect(segments()).toBe(before + 1);
  checkIndex(database.sqlite);
});

it.skipIf(onPostgres)(
  "keeps each ticket's row of the index under its id, and writes it only when its text changes",
  async () => {
    const { client, database } = await connected();
    const { sqlite } = database;
    /** The index's rows: ticket ids and the words each holds, with FTS5's own check that they are the tickets'. */
    const rows = () => {
      checkIndex(sqlite);
      return sqlite
        .prepare(
          `SELECT tickets_fts.rowid AS id, tickets.id AS ticket, tickets.title AS title FROM tickets_fts
         LEFT JOIN tickets ON tickets.id = tickets_fts.rowid ORDER BY tickets_fts.rowid`,
        )
        .all();
    };
    /** Everything FTS5 has stored: any write to the index changes it. */
    const stored = () =>
      sqlite.prepare('SELECT group_concat(hex(block)) FROM tickets_fts_data').pluck().get();
    await seedTicket(client, { title: 'Crash on save', priority: 'high' });
    await seedTicket(client, { title: 'Login is slow' });
    await keys(client, { query: 'crash' });
    expect(rows()).toEqual([
      { id: 1, ticket: 1, title: 'Crash on save' },
      { id: 2, ticket: 2, title: 'Login is slow' },
    ]);
    const written = stored();
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'todo' });
    await callOk(client, 'update_ticket', {
      key: 'SHIP-1',
      priority: 'low',
      assignee: 'ana',
      labels: ['ui'],
    });
    expect(stored()).toBe(written);
    expect(await keys(client, { query: 'crash', status: ['todo'], priority: ['low'] })).toEqual(['SHIP-1']);
    expect(await keys(client, { query: 'crash', status: ['backlog'] })).toEqual([]);
    await callOk(client, 'update_ticket', { key: 'SHIP-2', title: 'Login crash' });
    expect(stored()).not.toBe(written);
    expect(rows()).toEqual([
      { id: 1, ticket: 1, title: 'Crash on save' },
      { id: 2, ticket: 2, title: 'Login crash' },
    ]);
    expect(await keys(client, { query: 'crash', status: ['backlog'] })).toEqual(['SHIP-2']);
  },
);

it.skipIf(onPostgres)(
  'finds the tickets another process created and has not indexed, and indexes them for both',
  () => {
    const [one, two] = twoProcesses();
    createTicket(one.db, { project: 'SHIP', title: 'Crash on save' });
    expect(waiting(two.sqlite)).toEqual([1]);
    expect(searchTickets(two.db, { query: 'crash' }).items.map((item) => item.key)).toEqual(['SHIP-1']);
    expect(waiting(one.sqlite)).toEqual([]);
    expect(searchTickets(one.db, { query: 'crash' }).total).toBe(1);
    checkIndex(one.sqlite);
  },
);

it.skipIf(onPostgres)(
  'searches without the new tickets, and says so, while another process holds the write lock',
  () => {
    const [one, two] = twoProcesses();
    createTicket(one.db, { project: 'SHIP', title: 'Crash on save', assignee: 'ana' });
    searchTickets(one.db, { query: 'crash' });
    createTicket(one.db, { project: 'SHIP', title: 'Crash on load' });
    createTicket(one.db, { project: 'SHIP', title: 'Login is slow' });
    two.sqlite.exec('BEGIN IMMEDIATE');
    try {
      const started = performance.now();
      const found = searchTickets(one.db, { query: 'crash' });
      expect(found.items.map((item) => item.key)).toEqual(['SHIP-1']);
      expect(found.note).toBe(leftOutNote(2));
      expect(leftOutNote(2)).toMatch(
        /^2 new tickets \(in any project\) could not be searched yet: another process/,
      );
      expect(leftOutNote(1)).toMatch(/^1 new ticket \(in any project\) could not/);
      // With the look-alikes of a filter that found nothing, the two notes are two sentences.
      const none = searchTickets(one.db, { query: 'crash', assignee: 'Aña' });
      expect(none.note).toBe(
        `Found nothing: no ticket is assigned to "Aña"; names in use like it: "ana" (1). ${leftOutNote(2)}`,
      );
      const similar = findSimilarTickets(one.db, { title: 'Crash on load' });
      expect(similar.items.map((item) => item.key)).toEqual(['SHIP-1']);
      expect(similar.note).toBe(leftOutNote(2));
      // Each waited INDEX_WAIT_MS for the lock, not the 5 s a write waits.
      expect(performance.now() - started).toBeLessThan(INDEX_WAIT_MS * 2 + 1_000);
      // The busy timeout of writes is back.
      expect(one.sqlite.pragma('busy_timeout', { simple: true })).toBe(5_000);
    } finally {
      two.sqlite.exec('ROLLBACK');
    }
    // Any other failure of the batch is not taken for a busy lock, and the busy timeout is back after it.
    one.sqlite.exec(
      "CREATE TEMP TRIGGER refuse BEFORE UPDATE ON main.tickets_indexed BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    expect(() => searchTickets(one.db, { query: 'crash' })).toThrow('refused');
    expect(one.sqlite.pragma('busy_timeout', { simple: true })).toBe(5_000);
    one.sqlite.exec('DROP TRIGGER temp.refuse');
    const found = searchTickets(one.db, { query: 'crash' });
    expect(found.items.map((item) => item.key)).toEqual(['SHIP-2', 'SHIP-1']);
    expect(found.note).toBeUndefined();
    expect(findSimilarTickets(one.db, { title: 'Crash on load' }).note).toBeUndefined();
  },
);

it.skipIf(onPostgres)(
  'indexes a ticket with a long text in the create or edit that gives it one',
  async () => {
    const { client, database } = await connected();
    await seedTicket(client, { title: 'L', description: 'x'.repeat(LONG_TEXT - 1) });
    expect(waiting(database.sqlite)).toEqual([1]);
    await seedTicket(client, { title: 'L', description: 'x'.repeat(LONG_TEXT) });
    expect(waiting(database.sqlite)).toEqual([]);
    await seedTicket(client, { title: 'Short again' });
    await seedTicket(client, { title: 'Short too' });
    await callOk(client, 'update_ticket', { key: 'SHIP-3', description: 'y'.repeat(LONG_TEXT) });
    expect(waiting(database.sqlite)).toEqual([]);
    checkIndex(database.sqlite);
    // An edit of an indexed ticket reaches the index by its trigger; no batch is needed for it.
    await seedTicket(client, { title: 'Waiting' });
    await callOk(client, 'update_ticket', { key: 'SHIP-3', description: 'z'.repeat(LONG_TEXT) });
    expect(waiting(database.sqlite)).toEqual([5]);
  },
);

it.skipIf(onPostgres)('indexes nothing for a search it refuses', async () => {
  const { client, database } = await connected();
  await seedTicket(client, { title: 'Crash on save' });
  await callError(client, 'search_tickets', { query: 'crash', project: 'NOPE' }, 'not_found');
  await callError(client, 'find_similar_tickets', { title: 'Crash on save', project: 'NOPE' }, 'not_found');
  expect(waiting(database.sqlite)).toEqual([1]);
});

it.skipIf(onPostgres)(
  'pages on from the first page: the tickets it left out, or created since, wait for a new search',
  () => {
    const [one, two] = twoProcesses();
    for (const title of ['Crash on save', 'Crash on load', 'Crash on exit', 'Crash on open'])
      createTicket(one.db, { project: 'SHIP', title });
    searchTickets(one.db, { query: 'crash' });
    for (const title of ['Crash on print', 'Crash on sync', 'Crash on undo'])
      createTicket(one.db, { project: 'SHIP', title });
    let offsetOf: string | null = null;
    for (const sort of ['updated', 'relevance'] as const) {
      two.sqlite.exec('BEGIN IMMEDIATE');
      const first = searchTickets(one.db, { query: 'crash', sort, limit: 2 });
      two.sqlite.exec('ROLLBACK');
      expect(first).toMatchObject({ total: 4, note: leftOutNote(3) });
      if (sort === 'updated') offsetOf = first.next_cursor;
      const seen = first.items.map((item) => item.key);
      let cursor = first.next_cursor;
      while (cursor) {
        const next = searchTickets(one.db, { query: 'crash', sort, limit: 2, cursor });
        expect(next.total).toBe(4);
        expect(next.note).toBeUndefined();
        seen.push(...next.items.map((item) => item.key));
        cursor = next.next_cursor;
      }
      expect(seen.toSorted()).toEqual(['SHIP-1', 'SHIP-2', 'SHIP-3', 'SHIP-4']);
    }
    // A cursor from before keyset paging (an offset alone) goes on from its first page too.
    const state = JSON.parse(Buffer.from(offsetOf ?? '', 'base64url').toString()) as { k?: unknown };
    delete state.k;
    const byOffset = searchTickets(one.db, {
      query: 'crash',
      sort: 'updated',
      limit: 2,
      cursor: Buffer.from(JSON.stringify(state)).toString('base64url'),
    });
    expect(byOffset.items.map((item) => item.key)).toEqual(['SHIP-2', 'SHIP-1']);
    expect(byOffset.note).toBeUndefined();
    expect(waiting(one.sqlite)).toEqual([5, 6, 7]);
    const again = searchTickets(one.db, { query: 'crash', limit: 2 });
    expect(again.total).toBe(7);
    expect(again.note).toBeUndefined();
  },
);
