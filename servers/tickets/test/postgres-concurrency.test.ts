import { Conflict } from '@shipyard/core';
import { callOk, spawnServer } from '@shipyard/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TicketsStore } from '../src/store/types.js';
import { bin, binArgs, createFromEach, databaseUrlFor, onPostgres, openStore } from './helpers.js';

// The PostgreSQL twins of concurrency.test.ts: several processes or pools on one database.
// Needs the built bin: `pnpm --filter @shipyard/tickets build` (the package's test script builds first).

const PROCESSES = 4;
const PER_PROCESS = 500;

/** A connection of its own to the database standing for `dataDir`, on the tickets schema. */
async function connectTo(dataDir: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: await databaseUrlFor(dataDir),
    options: '-c search_path=tickets',
  });
  await client.connect();
  return client;
}

describe.runIf(onPostgres)('tickets on one PostgreSQL database from several processes', () => {
  it(`gives ${PROCESSES} processes ${PROCESSES * PER_PROCESS} ticket keys of one project, contiguous, without duplicate`, async () => {
    const dataDir = 'four-processes';
    const args = await binArgs(dataDir);
    const setup = await spawnServer(bin, [...args, '--user', 'setup']);
    try {
      await callOk(setup, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    } finally {
      await setup.close();
    }

    const stderr: string[] = [];
    const users = Array.from({ length: PROCESSES }, (_, i) => `worker${i + 1}`);
    const workers = await Promise.all(
      users.map((user) => spawnServer(bin, [...args, '--user', user], { stderr })),
    );
    try {
      const created = await createFromEach(workers, PER_PROCESS);
      for (const keys of created) expect(keys).toHaveLength(PER_PROCESS);
      const returned = created.flat();
      expect(new Set(returned).size).toBe(PROCESSES * PER_PROCESS);
      const expected = Array.from({ length: PROCESSES * PER_PROCESS }, (_, i) => `SHIP-${i + 1}`);
      expect(returned.toSorted((a, b) => Number(a.slice(5)) - Number(b.slice(5)))).toEqual(expected);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr.join('').slice(-4_000)}`);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }

    const db = await connectTo(dataDir);
    try {
      const { rows } = await db.query<{ key: string; number: number; reporter: string }>(
        'SELECT key, number, reporter FROM tickets ORDER BY number',
      );
      const expected = Array.from({ length: PROCESSES * PER_PROCESS }, (_, i) => `SHIP-${i + 1}`);
      expect(rows.map((row) => row.key)).toEqual(expected);
      expect(rows.map((row) => row.number)).toEqual(expected.map((_, i) => i + 1));
      // Every process really took part, their creations interleaved.
      const switches = rows.filter((row, i) => i > 0 && row.reporter !== rows[i - 1]?.reporter).length;
      expect(switches).toBeGreaterThan(20);
      const byReporter = await db.query(
        'SELECT reporter, count(*)::int AS n FROM tickets GROUP BY reporter ORDER BY reporter',
      );
      expect(byReporter.rows).toEqual(users.map((reporter) => ({ reporter, n: PER_PROCESS })));
      const project = await db.query("SELECT last_number AS n FROM projects WHERE key = 'SHIP'");
      expect(project.rows).toEqual([{ n: PROCESSES * PER_PROCESS }]);
      // Every ticket got its `created` history row in the same transaction.
      const history = await db.query("SELECT count(*)::int AS n FROM history WHERE field = 'created'");
      expect(history.rows).toEqual([{ n: PROCESSES * PER_PROCESS }]);
    } finally {
      await db.end();
    }
  }, 240_000);
});

describe.runIf(onPostgres)('expected_version between two writers on one PostgreSQL database', () => {
  const dataDir = 'two-writers';
  let one: TicketsStore;
  let two: TicketsStore;
  let db: pg.Client;

  beforeAll(async () => {
    // Two stores, each with its own pool, as two processes would have them.
    one = (await openStore(dataDir)).store;
    two = (await openStore(dataDir)).store;
    db = await connectTo(dataDir);
    await one.createProject({ key: 'SHIP', name: 'Shipyard' });
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close(), db?.end()]);
  });

  /**
   * Run both writes at once, each given the version both writers read first. A third connection holds the
   * ticket's row until both writes wait on it, so both are in flight together whatever the scheduling;
   * then it lets them go.
   */
  async function race(
    key: string,
    writes: [(version: number) => Promise<unknown>, (version: number) => Promise<unknown>],
  ) {
    const [read1, read2] = await Promise.all([one.getTicket(key), two.getTicket(key)]);
    expect(read1.version).toBe(read2.version);
    const blocker = await connectTo(dataDir);
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM tickets WHERE key = $1 FOR UPDATE', [key]);
      const settled = Promise.allSettled(
        writes.map((write, i) => write(i === 0 ? read1.version : read2.version)),
      );
      await expect
        .poll(async () => {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0]?.n;
        })
        .toBe(2);
      await blocker.query('COMMIT');
      return { read: read1.version, results: await settled };
    } finally {
      await blocker.end();
    }
  }

  /** Exactly one write won; the other is the Conflict naming the version the winner made. */
  function oneWon(read: number, results: PromiseSettledResult<unknown>[]) {
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const reason = lost[0]?.reason as Conflict | undefined;
    expect(reason).toBeInstanceOf(Conflict);
    expect(reason?.message).toMatch(
      new RegExp(`^SHIP-\\d+ is at version ${read + 1}, not ${read}: it changed since you read it`),
    );
  }

  it('lets one of two updates with the same expected_version through, and refuses the other with Conflict', async () => {
    await one.createTicket({ project: 'SHIP', title: 'Raced' }, 'ana');
    const { read, results } = await race('SHIP-1', [
      (version) => one.updateTicket({ key: 'SHIP-1', expected_version: version, title: 'By one' }, 'one'),
      (version) => two.updateTicket({ key: 'SHIP-1', expected_version: version, title: 'By two' }, 'two'),
    ]);
    oneWon(read, results);
    const ticket = await one.getTicket('SHIP-1');
    expect(ticket.version).toBe(read + 1);
    // The winner's change alone was written, once, in the ticket and in its history.
    const winner = results.findIndex((result) => result.status === 'fulfilled') === 0 ? 'one' : 'two';
    expect(ticket.title).toBe(winner === 'one' ? 'By one' : 'By two');
    const history = await db.query(
      `SELECT h.field, h.new_value, h.changed_by FROM history h JOIN tickets t ON t.id = h.ticket_id
       WHERE t.key = 'SHIP-1' AND h.field <> 'created'`,
    );
    expect(history.rows).toEqual([{ field: 'title', new_value: ticket.title, changed_by: winner }]);
  });

  it('does the same for a transition racing an update, and for two bulk updates', async () => {
    await one.createTicket({ project: 'SHIP', title: 'Moved' }, 'ana');
    const moved = await race('SHIP-2', [
      (version) => one.transitionTicket({ key: 'SHIP-2', status: 'todo', expected_version: version }, 'one'),
      (version) => two.updateTicket({ key: 'SHIP-2', expected_version: version, priority: 'high' }, 'two'),
    ]);
    oneWon(moved.read, moved.results);
    expect((await two.getTicket('SHIP-2')).version).toBe(moved.read + 1);

    // A bulk update reports a stale key as that key's Conflict, not as a failed call.
    const bulk = await race('SHIP-2', [
      (version) => one.bulkUpdate([{ key: 'SHIP-2', expected_version: version, priority: 'low' }], 'one'),
      (version) => two.bulkUpdate([{ key: 'SHIP-2', expected_version: version, priority: 'urgent' }], 'two'),
    ]);
    const answers = bulk.results.map((result) => {
      if (result.status !== 'fulfilled') throw result.reason;
      return (result.value as Awaited<ReturnType<TicketsStore['bulkUpdate']>>).results[0];
    });
    expect(answers.filter((answer) => answer?.ok)).toHaveLength(1);
    expect(answers.filter((answer) => answer?.error?.code === 'conflict')).toHaveLength(1);
    expect((await one.getTicket('SHIP-2')).version).toBe(bulk.read + 1);
  });
});
