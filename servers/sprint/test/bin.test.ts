import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, readText, spawnServer } from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { bin } from './helpers.js';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-sprint-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it('the built bin serves over stdio on its SQLite file', async () => {
  const client = await spawnServer(bin, ['--data-dir', dataDir]);
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-sprint', version: pkg.version });
    const added = await callOk<{ uri: string }>(client, 'add_sprint_item', { title: 'Over stdio' });
    expect(await readText(client, added.uri)).toContain('# Over stdio');
  } finally {
    await client.close();
  }
});
