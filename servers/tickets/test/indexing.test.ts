import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callError, callOk, connect } from '@shipyard/testing';
import type Database from 'better-sqlite3';
import { afterEach, expect, it, vi } from 'vitest';
import { openTicketsDatabase } from '../src/db/open.js';
import {
  COMPACT_DELAY_MS,
  COMPACT_FROM,
  COMPACT_PAGES,
  compactIndexStep,
  compactSoon,
  INDEX_BATCH,
  INDEX_WAIT_MS,
  indexNewTickets,
  LONG_TEXT,
  leftOutNote,
} from '../src/domain/indexing.js';
import { createProject } from '../src/domain/projects.js';
import { findSimilarTickets, searchTickets } from '../src/domain/search.js';
import { createTicket } from '../src/domain/tickets.js';
import { createTicketsServer } from '../src/server.js';
import { connectTickets, migrations, seedProject, seedTicket, type TicketsClient } from './helpers.js';

// New tickets enter the full-text index in batches (drizzle/0005_fts_batches.sql).

const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
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

it('the index check used below fails when the index and the tickets disagree', async () => {
  const { client, database } = await connected();
  await seedTicket(client, { title: 'Crash on save' });
  await keys(client, { query: 'crash' });
  checkIndex(database.sqlite);
  database.sqlite.exec('DROP TRIGGER tickets_fts_update');
  database.sqlite.prepare("UPDATE tickets SET title = 'Login is slow' WHERE id = 1").run();
  expect(() => checkIndex(database.sqlite)).toThrow(/checksum mismatch|malformed/);
});

it('indexes new tickets as they are now before a search reads the index, and edits of indexed ones at once', async () => {
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
});

it('finds a waiting ticket as a duplicate', async () => {
  const { client, database } = await connected();
  await seedTicket(client, { title: 'Export to CSV drops the header row' });
  expect(waiting(database.sqlite)).toEqual([1]);
  const similar = await callOk<{ items: { key: string }[] }>(client, 'find_similar_tickets', {
    title: 'CSV export drops the header row',
  });
  expect(similar.items.map((item) => item.key)).toEqual(['SHIP-1']);
  expect(waiting(database.sqlite)).toEqual([]);
});

it(`indexes the waiting tickets in the create that makes them ${INDEX_BATCH}`, () => {
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

it('finds the tickets another process created and has not indexed, and indexes them for both', () => {
  const [one, two] = twoProcesses();
  createTicket(one.db, { project: 'SHIP', title: 'Crash on save' });
  expect(waiting(two.sqlite)).toEqual([1]);
  expect(searchTickets(two.db, { query: 'crash' }).items.map((item) => item.key)).toEqual(['SHIP-1']);
  expect(waiting(one.sqlite)).toEqual([]);
  expect(searchTickets(one.db, { query: 'crash' }).total).toBe(1);
  checkIndex(one.sqlite);
});

it('searches without the new tickets, and says so, while another process holds the write lock', () => {
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
});

it('indexes a ticket with a long text in the create or edit that gives it one', async () => {
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
});

it('indexes nothing for a search it refuses', async () => {
  const { client, database } = await connected();
  await seedTicket(client, { title: 'Crash on save' });
  await callError(client, 'search_tickets', { query: 'crash', project: 'NOPE' }, 'not_found');
  await callError(client, 'find_similar_tickets', { title: 'Crash on save', project: 'NOPE' }, 'not_found');
  expect(waiting(database.sqlite)).toEqual([1]);
});

it('pages on from the first page: the tickets it left out, or created since, wait for a new search', () => {
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
});

// Folding the index's segments (compactIndexStep, compactSoon).

/** How many segments the full-text index is in: each batch of new tickets writes one. */
const segments = (sqlite: Database.Database) =>
  sqlite.prepare<[], number>('SELECT count(DISTINCT segid) FROM tickets_fts_idx').pluck().get();
/** Pages of the full-text index (its leaves and their b-trees). */
const pages = (sqlite: Database.Database) =>
  sqlite.prepare<[], number>('SELECT count(*) FROM tickets_fts_data').pluck().get() ?? 0;

const WORDS = 'crash login export checkout slow timeout upload sync dashboard billing invoice cache'.split(
  ' ',
);
/** `count` tickets of project 1 inserted straight into the table (quicker than creates), not indexed yet. */
function insertTickets(sqlite: Database.Database, count: number) {
  const first = (sqlite.prepare<[], number>('SELECT count(*) FROM tickets').pluck().get() ?? 0) + 1;
  const insert = sqlite.prepare(
    `INSERT INTO tickets (project_id, number, key, title, description, type, status, priority, priority_rank,
       reporter, labels, version, created_at, updated_at)
     VALUES (1, ?, ?, ?, ?, 'bug', 'todo', 'high', 1, 'ana', '[]', 1, '2025-01-01T00:00:00.000Z',
       '2025-01-01T00:00:00.000Z')`,
  );
  const word = (n: number) => WORDS[(n * 7 + (n >> 3)) % WORDS.length];
  sqlite.transaction(() => {
    for (let n = first; n < first + count; n++)
      insert.run(
        n,
        `SHIP-${n}`,
        `${word(n)} ${word(n + 1)} number ${n}`,
        Array.from({ length: 30 }, (_, i) => `${word(n * 31 + i)}${(n * 31 + i) % 997}`).join(' '),
      );
    sqlite.prepare('UPDATE projects SET last_number = ? WHERE id = 1').run(first + count - 1);
  })();
}

/**
 * Two connections to a new file (twoProcesses) whose index the first left in `count` segments of `size`
 * tickets each, as batches leave it.
 */
function inSegments(count: number, size: number) {
  const both = twoProcesses();
  for (let n = 0; n < count; n++) {
    insertTickets(both[0].sqlite, size);
    indexNewTickets(both[0].db);
  }
  // A large batch can make more than one: FTS5 writes a segment each time its buffer fills.
  expect(segments(both[0].sqlite)).toBeGreaterThanOrEqual(count);
  return both;
}

const found = (db: Parameters<typeof searchTickets>[0], query: string) => {
  const page = searchTickets(db, { query, limit: 50 });
  return { total: page.total, keys: page.items.map((item) => item.key) };
};

it('folds the index into one segment a step at a time, and searches find what they found', () => {
  const [one] = inSegments(COMPACT_FROM, 2_000);
  expect(pages(one.sqlite)).toBeGreaterThan(2 * COMPACT_PAGES);
  const queries = ['crash', 'login dashboard', 'number 4321', 'cache3*'];
  const before = queries.map((query) => found(one.db, query));
  expect(before.map((result) => result.total > 0)).toEqual(queries.map(() => true));
  const steps: string[] = [];
  for (let step = compactIndexStep(one.db); step !== 'done'; step = compactIndexStep(one.db)) {
    steps.push(step);
    if (steps.length > 100) throw new Error('the fold did not end');
  }
  // Each step merges at most COMPACT_PAGES pages: a fold of this size takes several.
  expect(steps.length).toBeGreaterThan(1);
  expect(new Set(steps)).toEqual(new Set(['more']));
  expect(segments(one.sqlite)).toBe(1);
  checkIndex(one.sqlite);
  expect(queries.map((query) => found(one.db, query))).toEqual(before);
  expect(compactIndexStep(one.db)).toBe('done');
});

it(`leaves an index of fewer than ${COMPACT_FROM} segments as it is`, () => {
  const [one] = inSegments(COMPACT_FROM - 1, 50);
  expect(segments(one.sqlite)).toBe(COMPACT_FROM - 1);
  const changes = one.sqlite.prepare<[], number>('SELECT total_changes()').pluck();
  const before = changes.get();
  expect(compactIndexStep(one.db)).toBe('done');
  expect(changes.get()).toBe(before);
  expect(segments(one.sqlite)).toBe(COMPACT_FROM - 1);
});

it('does nothing while another process holds the write lock, and goes on after', () => {
  const [one, two] = inSegments(COMPACT_FROM, 50);
  const timeout = one.sqlite.pragma('busy_timeout', { simple: true });
  two.sqlite.exec('BEGIN IMMEDIATE');
  const started = Date.now();
  expect(compactIndexStep(one.db)).toBe('busy');
  expect(Date.now() - started).toBeLessThan(INDEX_WAIT_MS);
  two.sqlite.exec('ROLLBACK');
  expect(segments(one.sqlite)).toBe(COMPACT_FROM);
  // The wait for other writers is as it was.
  expect(one.sqlite.pragma('busy_timeout', { simple: true })).toBe(timeout);
  while (compactIndexStep(one.db) !== 'done');
  expect(segments(one.sqlite)).toBe(1);
});

it(`folds the index ${COMPACT_DELAY_MS} ms after a create or search indexed a batch`, () => {
  vi.useFakeTimers();
  const [one, two] = twoProcesses();
  // A long text is indexed by its create, a segment each (indexBatchAt).
  for (const word of ['alpha', 'beta', 'gamma'])
    createTicket(one.db, { project: 'SHIP', title: word, description: `${word} `.repeat(LONG_TEXT / 5) });
  expect(segments(one.sqlite)).toBe(COMPACT_FROM);
  vi.advanceTimersByTime(COMPACT_DELAY_MS - 1);
  expect(segments(one.sqlite)).toBe(COMPACT_FROM);
  vi.advanceTimersByTime(1);
  vi.runAllTimers();
  expect(segments(one.sqlite)).toBe(1);
  // A search that indexes a batch (indexNewTickets), in the other process.
  createTicket(one.db, { project: 'SHIP', title: 'delta', description: 'delta '.repeat(LONG_TEXT / 5) });
  createTicket(one.db, { project: 'SHIP', title: 'short' });
  vi.runAllTimers();
  expect(segments(one.sqlite)).toBe(2);
  expect(searchTickets(two.db, { query: 'short' }).total).toBe(1);
  expect(segments(two.sqlite)).toBe(COMPACT_FROM);
  vi.advanceTimersByTime(COMPACT_DELAY_MS);
  vi.runAllTimers();
  expect(segments(two.sqlite)).toBe(1);
  expect(vi.getTimerCount()).toBe(0);
});

it('puts the fold off with each call', () => {
  vi.useFakeTimers();
  const [{ db, sqlite }] = inSegments(COMPACT_FROM, 50);
  vi.advanceTimersByTime(COMPACT_DELAY_MS - 1);
  compactSoon(db);
  vi.advanceTimersByTime(COMPACT_DELAY_MS - 1);
  expect(segments(sqlite)).toBe(COMPACT_FROM);
  vi.advanceTimersByTime(1);
  vi.runAllTimers();
  expect(segments(sqlite)).toBe(1);
});

it('stops folding, without a word, once the database is closed', () => {
  vi.useFakeTimers();
  const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  const [one] = inSegments(COMPACT_FROM, 50);
  one.close();
  vi.runAllTimers();
  expect(warn).not.toHaveBeenCalled();
});

it('stops folding with a warning when a step fails otherwise', () => {
  vi.useFakeTimers();
  const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  const [one] = inSegments(COMPACT_FROM, 50);
  one.sqlite.exec('DROP TABLE tickets_fts');
  vi.runAllTimers();
  expect(warn).toHaveBeenCalledTimes(1);
  expect(String(warn.mock.calls[0]?.[0])).toMatch(
    /^tickets: stopped folding the search index: .*tickets_fts/,
  );
  expect(vi.getTimerCount()).toBe(0);
});

it('a server folds an index that another run left in segments once a client has initialized', async () => {
  const [one, two] = inSegments(COMPACT_FROM, 50);
  // The run that wrote the batches stops before it folds them.
  one.close();
  const client = await connect(createTicketsServer({ db: two.db }), { user: 'ana' });
  closers.unshift(() => client.close());
  const started = Date.now();
  while (segments(two.sqlite) !== 1) {
    if (Date.now() - started > 10 * COMPACT_DELAY_MS) throw new Error('not folded');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(Date.now() - started).toBeGreaterThanOrEqual(COMPACT_DELAY_MS - 100);
  checkIndex(two.sqlite);
  expect(await keys(client, { query: 'crash' })).not.toHaveLength(0);
});
