// Two real processes on one file. The workers import the BUILT package (dist/), so run
// `pnpm --filter @shipyard/db build` first (turbo's test task depends on build).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase } from '../src/index.js';
import { FIXTURES, MIGRATIONS, tempDir } from './helpers.js';

const WORKER = path.join(FIXTURES, 'worker.mjs');
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SERVER = 'race';
const PER_WORKER = 1000;

interface WorkerResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Worker {
  ready: Promise<void>;
  done: Promise<WorkerResult>;
}

function startWorker(args: string[]): Worker {
  const child: ChildProcess = spawn(process.execPath, [WORKER, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ready\n')) markReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<WorkerResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      markReady(); // never leave the caller waiting on a worker that died early
      resolve({ code, stdout, stderr });
    });
  });
  return { ready, done };
}

/** Starts the workers, waits until every one has opened the database, then releases them together. */
async function race(dataDir: string, mode: string, arg: string, workers = 2): Promise<WorkerResult[]> {
  // The go file sits next to the data dir: the data dir may not exist yet (the workers create it).
  const goFile = `${dataDir}.go`;
  const started = Array.from({ length: workers }, () => startWorker([mode, dataDir, SERVER, goFile, arg]));
  await Promise.all(started.map((w) => w.ready));
  fs.writeFileSync(goFile, '');
  return Promise.all(started.map((w) => w.done));
}

beforeAll(() => {
  if (!fs.existsSync(DIST)) {
    throw new Error(`${DIST} is missing: run \`pnpm --filter @shipyard/db build\` before the tests.`);
  }
});

describe('two processes on one file', () => {
  it(`serializes 2 x ${PER_WORKER} read-then-write IMMEDIATE transactions: no SQLITE_BUSY, no gap, no duplicate`, async () => {
    const dataDir = path.join(tempDir(), 'data');
    const setup = openDatabase({ server: SERVER, dataDir });
    migrate(setup, MIGRATIONS);
    setup.sqlite.prepare("INSERT INTO projects (id, key, name) VALUES (1, 'RACE', 'Race')").run();
    setup.close();

    const results = await race(dataDir, 'count', String(PER_WORKER));

    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    const check = openDatabase({ server: SERVER, dataDir, readonly: true });
    try {
      const counters = check.sqlite
        .prepare('SELECT counter FROM items ORDER BY counter')
        .pluck()
        .all() as number[];
      expect(counters).toHaveLength(2 * PER_WORKER);
      expect(counters).toEqual(Array.from({ length: 2 * PER_WORKER }, (_, i) => i + 1));
      const perWriter = check.sqlite
        .prepare('SELECT writer, count(*) AS n FROM items GROUP BY writer')
        .all() as Array<{ writer: string; n: number }>;
      expect(perWriter.map((row) => row.n)).toEqual([PER_WORKER, PER_WORKER]);
    } finally {
      check.close();
    }
  }, 60_000);

  it('lets processes open and migrate the same fresh file at once: applied exactly once', async () => {
    for (let round = 0; round < 5; round += 1) {
      const dataDir = path.join(tempDir(), 'fresh');
      const results = await race(dataDir, 'migrate', MIGRATIONS, 3);

      for (const result of results) {
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
      }
      // One process applied the migration, the others found nothing to do.
      const appliedCounts = results.map((r) => Number(/applied (\d+)/.exec(r.stdout)?.[1])).sort();
      expect(appliedCounts).toEqual([0, 0, 1]);

      const check = openDatabase({ server: SERVER, dataDir, readonly: true });
      try {
        expect(check.sqlite.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(1);
        expect(check.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
        const tables = check.sqlite
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('projects', 'items')")
          .pluck()
          .all();
        expect(tables).toHaveLength(2);
      } finally {
        check.close();
      }
    }
  }, 180_000);
});
