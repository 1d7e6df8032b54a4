import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  callOk,
  damageTable,
  expectToolError,
  pageLimitOptions,
  runBin,
  spawnServer,
  togglePageLimit,
  waitFor,
} from '@shipyard/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bin, onPostgres } from './helpers.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

type Client = Awaited<ReturnType<typeof spawnServer>>;

/** A project and enough tickets, with long descriptions, to fill several pages of the tickets table. */
async function seed(client: Client) {
  await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
  for (let i = 1; i <= 30; i++) {
    await callOk(client, 'create_ticket', {
      project: 'SHIP',
      title: `Ticket number ${i}`,
      description: `Steps to see it, case ${i}: ${'open the board and look. '.repeat(20)}`,
    });
  }
}

/** The damage error, as a write gets it: the file by name only, and the command that checks one. */
function expectDamage(result: unknown) {
  const error = expectToolError(result, 'internal');
  expect(error.message).toContain('The data file tickets.db is damaged');
  expect(error.hint).toContain('restore tickets.db from a backup');
  expect(error.hint).toContain('shipyard-tickets --check');
  expect(JSON.stringify(error)).not.toContain(dataDir);
}

// SQLite only: a damaged or full data file.
it.skipIf(onPostgres)(
  'refuses writes on a data file damaged before it started, once quick_check has found it; reads go on',
  async () => {
    const first = await spawnServer(bin, ['--data-dir', dataDir]);
    await seed(first);
    await first.close();
    damageTable(join(dataDir, 'tickets.db'), 'tickets');

    const stderr: string[] = [];
    const client = await spawnServer(bin, ['--data-dir', dataDir], { stderr });
    try {
      // The first call opens the file; the check then runs beside the server.
      expect(await callOk(client, 'list_projects')).toMatchObject({ count: 1 });
      await waitFor(() => stderr.join('').includes('is damaged (quick_check found'), 'the check to end');
      const log = stderr.join('');
      expect(log).toContain(join(dataDir, 'tickets.db'));
      expect(log).toContain('shipyard-tickets --check');
      // A write that the damaged page has nothing to do with is refused all the same.
      expectDamage(await client.callTool({ name: 'create_project', arguments: { key: 'WEB', name: 'Web' } }));
      expect(await callOk(client, 'list_projects')).toMatchObject({ count: 1 });
    } finally {
      await client.close();
    }
  },
);

it.skipIf(onPostgres)(
  'refuses every later write once a call meets a page damaged while it runs; reads go on',
  async () => {
    const client = await spawnServer(bin, ['--data-dir', dataDir]);
    try {
      await seed(client);
      damageTable(join(dataDir, 'tickets.db'), 'tickets', { touch: true });
      expectDamage(await client.callTool({ name: 'search_tickets', arguments: { limit: 100 } }));
      expectDamage(await client.callTool({ name: 'create_project', arguments: { key: 'WEB', name: 'Web' } }));
      expect(await callOk(client, 'list_projects')).toMatchObject({ count: 1 });
    } finally {
      await client.close();
    }
  },
);

it.skipIf(onPostgres)(
  '--check prints ok for a sound data file and the problems for a damaged one',
  async () => {
    const client = await spawnServer(bin, ['--data-dir', dataDir]);
    await seed(client);
    await client.close();
    const file = join(dataDir, 'tickets.db');

    const sound = await runBin(bin, ['--check', '--data-dir', dataDir]);
    expect(sound).toMatchObject({ code: 0, stderr: '' });
    expect(sound.stdout).toBe(`${file}: ok (integrity_check found no problems)\n`);

    damageTable(file, 'tickets');
    const damaged = await runBin(bin, ['--check', '--data-dir', dataDir]);
    expect(damaged).toMatchObject({ code: 1, stdout: '' });
    expect(damaged.stderr).toContain(`${file}: damaged; integrity_check found:`);
    // SQLite lists the pages it found wrong, or stops at the first it cannot read ("malformed").
    expect(damaged.stderr).toMatch(/\n {2}(.*[Pp]age \d+|database disk image is malformed)/);
    expect(damaged.stderr).toContain('restore tickets.db from a backup');

    const missing = await runBin(bin, ['--check', '--data-dir', join(dataDir, 'none')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('there is no data file to check');
  },
);

it.skipIf(onPostgres)(
  'answers a write on a full disk with an upstream error to retry, and writes again once there is room',
  async () => {
    const stderr: string[] = [];
    const client = await spawnServer(bin, ['--data-dir', dataDir], {
      stderr,
      env: { NODE_OPTIONS: pageLimitOptions() },
    });
    try {
      await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
      const big = { project: 'SHIP', title: 'Needs room', description: 'A long story. '.repeat(2000) };
      await togglePageLimit(client, stderr, 'on');
      const error = expectToolError(
        await client.callTool({ name: 'create_ticket', arguments: big }),
        'upstream',
      );
      expect(error.message).toContain('The disk holding tickets.db is full');
      expect(error.message).toContain('can be retried');
      expect(error.hint).toBe('Free space on that disk, then retry the call');
      await togglePageLimit(client, stderr, 'off');
      expect(await callOk(client, 'create_ticket', big)).toMatchObject({ key: 'SHIP-1' });
    } finally {
      await client.close();
    }
  },
);
