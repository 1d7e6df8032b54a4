import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, spawnServer, watchResourceUpdates } from '@shipyard/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prng } from '../src/domain/metrics.js';
import { bin } from './helpers.js';

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

it('two processes moving and re-ranking the same stories lose no update and repeat no rank', async () => {
  const setup = await spawnServer(bin, ['--data-dir', dataDir]);
  try {
    await callOk(setup, 'create_sprint', { name: 'Race', start_date: '2026-03-02', end_date: '2026-03-06' });
    for (let i = 0; i < STORIES; i++) await callOk(setup, 'create_story', { title: `Story ${i}` });
  } finally {
    await setup.close();
  }

  const stderr: string[] = [];
  const workers = await Promise.all([0, 1].map(() => spawnServer(bin, ['--data-dir', dataDir], { stderr })));
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
    const sqlite = new Database(join(dataDir, 'sprint.db'), { readonly: true });
    try {
      const rows = sqlite.prepare('SELECT id, rank, version FROM stories ORDER BY rank').all() as {
        id: number;
        rank: string;
        version: number;
      }[];
      expect(rows).toHaveLength(STORIES);
      expect(new Set(rows.map((row) => row.rank)).size).toBe(STORIES);
      // Every move that was answered bumped its story's version once; a move can only be a no-op when the
      // story already sat just there, so no version is higher than the moves made and none was lost.
      const made = new Map<number, number>();
      for (const done of moves)
        for (const [key, n] of done)
          made.set(Number(key.slice(3)), (made.get(Number(key.slice(3))) ?? 0) + n);
      const totalMoves = [...made.values()].reduce((a, b) => a + b, 0);
      expect(totalMoves).toBe(2 * PER_PROCESS);
      for (const row of rows) expect(row.version - 1).toBeLessThanOrEqual(made.get(row.id) ?? 0);
      const bumped = rows.reduce((sum, row) => sum + row.version - 1, 0);
      expect(bumped).toBeGreaterThan(totalMoves * 0.9);
    } finally {
      sqlite.close();
    }
    expect(stderr.join('')).not.toMatch(/SQLITE_BUSY|UNIQUE constraint/);
  } finally {
    await Promise.all(workers.map((worker) => worker.close()));
  }
});

it('tells a subscriber of one process about a write made through another', async () => {
  const [one, two] = await Promise.all([0, 1].map(() => spawnServer(bin, ['--data-dir', dataDir])));
  if (!one || !two) throw new Error('no servers');
  try {
    const updates = watchResourceUpdates(one);
    await one.subscribeResource({ uri: 'sprint://backlog' });
    await callOk(two, 'create_story', { title: 'Made elsewhere' });
    await expect.poll(() => updates, { timeout: 5000 }).toContain('sprint://backlog');
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});
