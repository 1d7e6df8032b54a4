import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, spawnServer, watchResourceUpdates } from '@shipyard/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../src/domain/metrics.js';
import {
  bin,
  binArgs,
  connectSprint,
  databaseUrlFor,
  engine,
  onPostgres,
  type SprintClient,
  untilWatching,
} from './helpers.js';

// Needs the built bin (the package's test script builds first).

const STORIES = 20;
const PER_PROCESS = 150;
/** Calls in flight per process, so the two processes' transactions really interleave. */
const IN_FLIGHT = 4;

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-sprint-race-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

interface StoredStory {
  id: number;
  rank: string;
  version: number;
}

/** The stories stored on a data dir, in rank order, read past the servers (the SQLite file or the database). */
async function storedStories(dir: string): Promise<StoredStory[]> {
  const select = 'SELECT id, rank, version FROM stories ORDER BY rank';
  if (!onPostgres) {
    const sqlite = new Database(join(dir, 'sprint.db'), { readonly: true });
    try {
      return sqlite.prepare(select).all() as StoredStory[];
    } finally {
      sqlite.close();
    }
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: await databaseUrlFor(dir) });
  await client.connect();
  try {
    return (await client.query<StoredStory>(select.replace('FROM stories', 'FROM sprint.stories'))).rows;
  } finally {
    await client.end();
  }
}

/** What a lost race or a broken transaction writes to stderr on either engine. */
const RACE_ERRORS = /SQLITE_BUSY|UNIQUE constraint|duplicate key|deadlock|could not serialize/;

it(`two processes moving and re-ranking the same stories lose no update and repeat no rank (${engine})`, async () => {
  const setup = await spawnServer(bin, await binArgs(dataDir));
  try {
    await callOk(setup, 'create_sprint', { name: 'Race', start_date: '2026-03-02', end_date: '2026-03-06' });
    for (let i = 0; i < STORIES; i++) await callOk(setup, 'create_story', { title: `Story ${i}` });
  } finally {
    await setup.close();
  }

  const stderr: string[] = [];
  const args = await binArgs(dataDir);
  const workers = await Promise.all([0, 1].map(() => spawnServer(bin, args, { stderr })));
  try {
    const moves = await Promise.all(
      workers.map(async (worker, w) => {
        const random = prng(w + 1);
        const key = () => `ST-${1 + Math.floor(random() * STORIES)}`;
        const done = new Map<string, number>();
        let next = 0;
        const lane = async () => {
          while (next++ < PER_PROCESS) {
            const story = key();
            let anchor = key();
            while (anchor === story) anchor = key();
            const where = random() < 0.5 ? { before: anchor } : { after: anchor };
            const to = random() < 0.3 ? (random() < 0.5 ? 'S-1' : 'backlog') : undefined;
            await callOk(worker, 'move_story', { story, ...where, ...(to ? { to } : {}) });
            done.set(story, (done.get(story) ?? 0) + 1);
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
        return done;
      }),
    );
    const rows = await storedStories(dataDir);
    expect(rows).toHaveLength(STORIES);
    expect(new Set(rows.map((row) => row.rank)).size).toBe(STORIES);
    // Every move that was answered bumped its story's version once; a move can only be a no-op when the
    // story already sat just there, so no version is higher than the moves made and none was lost.
    const made = new Map<number, number>();
    for (const done of moves)
      for (const [key, n] of done) made.set(Number(key.slice(3)), (made.get(Number(key.slice(3))) ?? 0) + n);
    const totalMoves = [...made.values()].reduce((a, b) => a + b, 0);
    expect(totalMoves).toBe(2 * PER_PROCESS);
    for (const row of rows) expect(row.version - 1).toBeLessThanOrEqual(made.get(row.id) ?? 0);
    const bumped = rows.reduce((sum, row) => sum + row.version - 1, 0);
    expect(bumped).toBeGreaterThan(totalMoves * 0.9);
    expect(stderr.join('')).not.toMatch(RACE_ERRORS);
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
  }
});

it(`three processes creating stories in one team at once get every story, each its own key and rank (${engine})`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-sprint-create-'));
  const stderr: string[] = [];
  const args = await binArgs(dir);
  const workers = await Promise.all([0, 1, 2].map(() => spawnServer(bin, args, { stderr })));
  const each = 40;
  try {
    const keys = (
      await Promise.all(
        workers.map(async (worker, w) => {
          const made: string[] = [];
          let next = 0;
          const lane = async () => {
            while (next < each) {
              const title = `w${w}-${next++}`;
              made.push((await callOk<{ key: string }>(worker, 'create_story', { title })).key);
            }
          };
          await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
          return made;
        }),
      )
    ).flat();
    const total = workers.length * each;
    expect(new Set(keys).size).toBe(total);
    // Nothing failed, so no id was taken and thrown away: the keys are ST-1 to ST-<total>.
    expect(keys.map((key) => Number(key.slice(3))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: total }, (_, i) => i + 1),
    );
    const rows = await storedStories(dir);
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((row) => row.rank)).size).toBe(total);
    expect(stderr.join('')).not.toMatch(RACE_ERRORS);
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});

it(`tells a subscriber of one process about a write made through another (${engine})`, async () => {
  const args = await binArgs(dataDir);
  const [one, two] = await Promise.all([0, 1].map(() => spawnServer(bin, args)));
  if (!one || !two) throw new Error('no servers');
  try {
    const updates = watchResourceUpdates(one);
    await untilWatching(one, updates);
    await one.subscribeResource({ uri: 'sprint://backlog' });
    await callOk(two, 'create_story', { title: 'Made elsewhere' });
    await expect.poll(() => updates, { timeout: 5000 }).toContain('sprint://backlog');
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

describe('two servers on one data, writing at once', () => {
  const update = (client: SprintClient, title: string) =>
    client.callTool({ name: 'update_story', arguments: { story: 'ST-1', expected_version: 1, title } });
  /** The error code of a tool result, or 'ok'. */
  const outcome = (result: Awaited<ReturnType<typeof update>>) =>
    result.isError
      ? (
          JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}') as {
            error: { code: string };
          }
        ).error.code
      : 'ok';

  /** Two servers on one data (two processes on one SQLite file, two replicas on one database). */
  async function twoServers() {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-sprint-twins-'));
    const a = await connectSprint({ dataDir: dir });
    const b = await connectSprint({ dataDir: dir });
    await callOk(a.client, 'create_story', { title: 'Shared' });
    return {
      dir,
      a: a.client,
      b: b.client,
      close: async () => {
        await Promise.all([a.client.close(), b.client.close()]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  it(`two writers with the same expected_version: one success and one Conflict, the losing edit not written (${engine})`, async () => {
    const { a, b, close } = await twoServers();
    try {
      const results = await Promise.all([update(a, 'from a'), update(b, 'from b')]);
      expect(results.map(outcome).sort()).toEqual(['conflict', 'ok']);
      const backlog = await callOk<{ items: { title: string; version: number }[] }>(a, 'get_backlog', {});
      expect(backlog.items).toEqual([
        expect.objectContaining({ version: 2, title: results[0]?.isError ? 'from b' : 'from a' }),
      ]);
    } finally {
      await close();
    }
  });

  /**
   * Start `calls` while a third transaction holds the rows `lock` selects, wait until `waiting` of them wait
   * on a lock, then let them all go at once; their results.
   */
  async function releasedAtOnce<T>(dir: string, lock: string, waiting: number, calls: () => Promise<T>) {
    const { default: pg } = await import('pg');
    const blocker = new pg.Client({ connectionString: await databaseUrlFor(dir) });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(lock);
      const all = calls();
      await expect
        .poll(
          async () =>
            (
              await blocker.query<{ c: number }>(
                "SELECT count(*)::int AS c FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
              )
            ).rows[0]?.c,
          { timeout: 10_000 },
        )
        .toBe(waiting);
      await blocker.query('COMMIT');
      return await all;
    } finally {
      await blocker.end();
    }
  }

  // Both writers are made to reach the story while a third transaction holds its row: a store that read the
  // version without locking it would let both pass the check and write twice.
  it.runIf(onPostgres)(
    'on PostgreSQL, two writers with the same expected_version released at once: one success and one Conflict',
    async () => {
      const { dir, a, b, close } = await twoServers();
      try {
        const results = await releasedAtOnce(
          dir,
          'SELECT 1 FROM sprint.stories WHERE id = 1 FOR UPDATE',
          2,
          () => Promise.all([update(a, 'from a'), update(b, 'from b')]),
        );
        expect(results.map(outcome).sort()).toEqual(['conflict', 'ok']);
        const story = await callOk<{ items: { version: number }[] }>(a, 'get_backlog', {});
        expect(story.items).toMatchObject([{ version: 2 }]);
      } finally {
        await close();
      }
    },
  );

  // Each start is made to wait for its own sprint's row: a store that checked for an active sprint without
  // holding the team would let both pass the check, and the second write would break the one-active index.
  it.runIf(onPostgres)(
    'on PostgreSQL, two sprints of one team started at once: one starts, the other is refused naming it',
    async () => {
      const { dir, a, b, close } = await twoServers();
      try {
        for (const name of ['One', 'Two']) {
          await callOk(a, 'create_sprint', { name, start_date: '2026-03-02', end_date: '2026-03-06' });
        }
        const results = await releasedAtOnce(dir, 'SELECT 1 FROM sprint.sprints FOR UPDATE', 2, () =>
          Promise.all([
            a.callTool({ name: 'start_sprint', arguments: { sprint: 'S-1' } }),
            b.callTool({ name: 'start_sprint', arguments: { sprint: 'S-2' } }),
          ]),
        );
        expect(results.map(outcome).sort()).toEqual(['conflict', 'ok']);
        const started = results[0]?.isError ? 'S-2' : 'S-1';
        expect(JSON.stringify(results.find((result) => result.isError)?.content)).toContain(
          `already has an active sprint, ${started}`,
        );
      } finally {
        await close();
      }
    },
  );

  it(`starting two sprints of one team at once: one starts, the other is refused naming it (${engine})`, async () => {
    const { a, b, close } = await twoServers();
    try {
      for (const name of ['One', 'Two']) {
        await callOk(a, 'create_sprint', { name, start_date: '2026-03-02', end_date: '2026-03-06' });
      }
      const results = await Promise.all([
        a.callTool({ name: 'start_sprint', arguments: { sprint: 'S-1' } }),
        b.callTool({ name: 'start_sprint', arguments: { sprint: 'S-2' } }),
      ]);
      expect(results.map(outcome).sort()).toEqual(['conflict', 'ok']);
      const started = results[0]?.isError ? 'S-2' : 'S-1';
      const refused = results.find((result) => result.isError);
      expect(JSON.stringify(refused?.content)).toContain(`already has an active sprint, ${started}`);
      const active = await callOk<{ items: { key: string }[] }>(a, 'list_sprints', { status: 'active' });
      expect(active.items.map((sprint) => sprint.key)).toEqual([started]);
    } finally {
      await close();
    }
  });
});
