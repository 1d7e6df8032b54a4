import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupWithoutDataFile, callOk, loadsPostgresDriver, readText, spawnServer } from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { bin, binArgs, databaseUrlFor, engine, onPostgres } from './helpers.js';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-sprint-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it(`the built bin serves over stdio on ${engine}, and draws a chart`, async () => {
  const client = await spawnServer(bin, await binArgs(dataDir));
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-sprint', version: pkg.version });
    const sprint = await callOk<{ key: string }>(client, 'create_sprint', {
      name: 'Over stdio',
      start_date: '2026-03-02',
      end_date: '2026-03-06',
    });
    await callOk(client, 'create_story', { title: 'First', points: 3, sprint: sprint.key });
    expect(await readText(client, `sprint://${sprint.key}`)).toContain('# S-1 Over stdio');
    // The chart library loads from its own files, outside the bundle.
    expect(await readText(client, `sprint://${sprint.key}/burndown.svg`)).toContain('<svg');
    const answer = (await client.callTool({ name: 'get_burndown', arguments: { sprint: sprint.key } })) as {
      content: { type: string; mimeType?: string }[];
    };
    expect(answer.content.filter((block) => block.type === 'image').map((block) => block.mimeType)).toEqual([
      'image/png',
    ]);
  } finally {
    await client.close();
  }
});

it('takes --backup FILE through @shipyard/db: without a data file it exits 1 naming the file', () => {
  const run = backupWithoutDataFile(bin, 'sprint');
  expect(run.stderr).toContain(`backup failed: there is no data file ${run.dataFile} to back up`);
  expect(run.status).toBe(1);
});

// --backup copies the SQLite file; a PostgreSQL database is backed up with its own tools.
it.runIf(onPostgres)('refuses --backup with a database URL and points to pg_dump', async () => {
  const run = spawnSync(
    process.execPath,
    [bin, '--database-url', await databaseUrlFor(dataDir), '--backup', join(dataDir, 'copy.db')],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toContain('pg_dump');
  expect(run.status).not.toBe(0);
});

// Cold start: the PostgreSQL driver loads only for a database URL.
it.skipIf(onPostgres)(
  'a start on SQLite never loads the PostgreSQL driver; one on a database URL does',
  async () => {
    expect(
      await loadsPostgresDriver(bin, dataDir, { name: 'create_story', arguments: { title: 'Cold' } }),
    ).toEqual({
      sqlite: false,
      url: true,
    });
  },
);
