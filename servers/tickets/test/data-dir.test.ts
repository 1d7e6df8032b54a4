import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, spawnServer } from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bin, onPostgres } from './helpers.js';

// Needs the built bin: `pnpm --filter @shipyard/tickets build` (the package's test script builds first).

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'shipyard-tickets-dirs-'));
  chmodSync(root, 0o755);
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

// SQLite only: the data dir and its file.
it.skipIf(onPostgres)(
  'started under umask 000, creates every missing folder of a nested data dir 0700 and the file 0600',
  async () => {
    const dataDir = join(root, 'home', 'share', 'shipyard', 'team');
    const previous = process.umask(0);
    let client: Awaited<ReturnType<typeof spawnServer>>;
    try {
      // The child takes the umask when it is spawned.
      client = await spawnServer(bin, ['--data-dir', dataDir, '--user', 'ana']);
    } finally {
      process.umask(previous);
    }
    try {
      await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
      await callOk(client, 'create_ticket', { project: 'SHIP', title: 'Private data' });
      const file = join(dataDir, 'tickets.db');
      for (const suffix of ['', '-wal', '-shm']) expect(modeOf(`${file}${suffix}`), suffix).toBe(0o600);
    } finally {
      await client.close();
    }
    for (const folder of ['home', 'home/share', 'home/share/shipyard', 'home/share/shipyard/team'])
      expect(modeOf(join(root, folder)), folder).toBe(0o700);
    // The folder that existed is left as it was.
    expect(modeOf(root)).toBe(0o755);
  },
);

it.skipIf(onPostgres)(
  'warns once on stderr about an existing data dir that every user can write, and serves from it',
  async () => {
    const dataDir = join(root, 'shared data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o777);
    const stderr: string[] = [];
    const client = await spawnServer(bin, ['--data-dir', dataDir, '--user', 'ana'], { stderr });
    try {
      await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
      const created = await callOk<{ key: string }>(client, 'create_ticket', {
        project: 'SHIP',
        title: 'Works',
      });
      expect(created.key).toBe('SHIP-1');
    } finally {
      await client.close();
    }
    // Nothing else is written on stderr at the default log level: the warning is the one line.
    const warnings = stderr.join('').split('\n').filter(Boolean);
    expect(warnings).toEqual([
      `shipyard-tickets: warning: the data directory ${dataDir} is writable by every user of this machine, who could replace or remove its database files; run \`chmod 700 '${dataDir}'\` to keep them private`,
    ]);
    expect(modeOf(dataDir)).toBe(0o777);
  },
);
