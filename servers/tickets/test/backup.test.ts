import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, spawnServer } from '@shipyard/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bin, onPostgres } from './helpers.js';

// Needs the built bin: `pnpm --filter @shipyard/tickets build` (the package's test script builds first).

const CREATES = 1_000;
const CLIENTS = 4;
/** Calls in flight per client process. */
const IN_FLIGHT = 6;
/** Acknowledged creates before the backup starts, so it copies a file that is being written. */
const BEFORE_BACKUP = 200;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-backup-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the bin to its exit; resolves with its exit code and output. */
function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// SQLite only: --backup copies the data file.
it.skipIf(onPostgres).each([
  ['while checkpoints copy the WAL into the file', false],
  // A reader's open snapshot stops checkpoints at it: every ticket is then only in the -wal file.
  ['while a reader keeps every ticket in the WAL', true],
])(
  'takes a backup during 1,000 concurrent creates that holds every ticket acknowledged before it began, %s',
  async (_, pinned) => {
    const name = pinned ? 'pinned' : 'busy';
    const dataDir = join(dir, name);
    const setup = await spawnServer(bin, ['--data-dir', dataDir, '--user', 'setup']);
    try {
      await callOk(setup, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    } finally {
      await setup.close();
    }
    const reader = pinned ? new Database(join(dataDir, 'tickets.db'), { readonly: true }) : undefined;
    reader?.exec('BEGIN');
    expect(reader?.prepare('SELECT count(*) FROM tickets').pluck().get() ?? 0).toBe(0);

    const stderr: string[] = [];
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        spawnServer(bin, ['--data-dir', dataDir, '--user', `writer${i}`], { stderr }),
      ),
    );
    const acknowledged: string[] = [];
    let started = 0;
    let backupDone = false;
    let ackedBefore: string[] | undefined;
    let ackedDuring = 0;
    let backupStarted!: () => void;
    const readyForBackup = new Promise<void>((resolve) => {
      backupStarted = resolve;
    });
    const out = join(dir, `${name}-backup.db`);
    try {
      // Every client keeps creating until 1,000 creates are made and the backup has finished.
      const lane = async (client: (typeof clients)[number], c: number) => {
        while (started < CREATES || !backupDone) {
          const i = started++;
          const ticket = await callOk<{ key: string }>(client, 'create_ticket', {
            project: 'SHIP',
            title: `Client ${c} ticket ${i}`,
          });
          acknowledged.push(ticket.key);
          if (ackedBefore) ackedDuring += backupDone ? 0 : 1;
          if (acknowledged.length >= BEFORE_BACKUP) backupStarted();
        }
      };
      const writing = Promise.all(
        clients.flatMap((client, c) => Array.from({ length: IN_FLIGHT }, () => lane(client, c))),
      );
      await readyForBackup;
      // What was acknowledged before the backup process starts must be in the copy.
      ackedBefore = [...acknowledged];
      const backup = await run(['--data-dir', dataDir, '--backup', out]);
      backupDone = true;
      await writing;

      expect(backup.stderr).toMatch(
        new RegExp(
          `^shipyard-tickets: backed up ${join(dataDir, 'tickets.db')} to ${out} \\(\\d+ pages, [^)]+\\)\\n$`,
        ),
      );
      expect(backup.stdout).toBe('');
      expect(backup.code).toBe(0);
      // The backup ran while the clients were writing.
      expect(ackedDuring).toBeGreaterThan(0);
      expect(acknowledged.length).toBeGreaterThanOrEqual(CREATES);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr.join('').slice(-4_000)}`);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      reader?.exec('COMMIT');
      reader?.close();
    }

    const copy = new Database(out, { readonly: true, fileMustExist: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const keys = (copy.prepare('SELECT key FROM tickets').pluck().all() as string[]).sort();
      const inCopy = new Set(keys);
      const missing = (ackedBefore ?? []).filter((key) => !inCopy.has(key));
      expect(missing).toEqual([]);
      // One commit's state: ticket numbers 1..n without a gap, as keys are given out in order.
      const numbers = keys.map((key) => Number(key.slice('SHIP-'.length))).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
      expect(numbers.length).toBeGreaterThanOrEqual(ackedBefore?.length ?? Number.POSITIVE_INFINITY);
    } finally {
      copy.close();
    }
    // The copy is one self-contained file; no temporary file is left beside it.
    expect(readdirSync(dir).filter((entry) => entry.startsWith(name) && entry !== name)).toEqual([
      `${name}-backup.db`,
    ]);
  },
);

it.skipIf(onPostgres)(
  'refuses an existing FILE unless --overwrite, and a data dir without a data file, with exit 1',
  async () => {
    const dataDir = join(dir, 'small');
    const setup = await spawnServer(bin, ['--data-dir', dataDir, '--user', 'setup']);
    try {
      await callOk(setup, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    } finally {
      await setup.close();
    }
    const out = join(dir, 'existing.db');
    writeFileSync(out, 'an older backup');
    const refused = await run(['--data-dir', dataDir, '--backup', out]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `shipyard-tickets: backup failed: ${out} already exists; add --overwrite to replace it, or name a new file\n`,
    );
    const replaced = await run(['--data-dir', dataDir, '--backup', out, '--overwrite']);
    expect(replaced.code).toBe(0);
    const copy = new Database(out, { readonly: true, fileMustExist: true });
    try {
      expect(copy.prepare('SELECT key FROM projects').pluck().all()).toEqual(['SHIP']);
    } finally {
      copy.close();
    }

    const empty = join(dir, 'empty');
    const missing = await run(['--data-dir', empty, '--backup', join(dir, 'never.db')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `shipyard-tickets: backup failed: there is no data file ${join(empty, 'tickets.db')} to back up; check --data-dir or SHIPYARD_DATA_DIR (the server creates the file when it first opens it)\n`,
    );
  },
);
