import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callOk, readText, spawnServer } from '@shipyard/testing';
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
  const empty = mkdtempSync(join(tmpdir(), 'shipyard-sprint-backup-'));
  try {
    const run = spawnSync(process.execPath, [bin, '--data-dir', empty, '--backup', join(empty, 'copy.db')], {
      encoding: 'utf8',
    });
    expect(run.stderr).toContain(
      `backup failed: there is no data file ${join(empty, 'sprint.db')} to back up`,
    );
    expect(run.status).toBe(1);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
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
    const hook = fileURLToPath(new URL('./fixtures/report-pg-load.cjs', import.meta.url));
    const stderr: string[] = [];
    const client = await spawnServer(bin, ['--data-dir', dataDir], {
      env: { NODE_OPTIONS: `--require ${hook}` },
      stderr,
    });
    try {
      await callOk(client, 'create_story', { title: 'Cold' });
    } finally {
      await client.close();
    }
    expect(stderr.join('')).not.toContain('loaded pg');
    // The hook does report the driver when it loads (a URL nothing listens on: the start fails after loading it).
    const failed: string[] = [];
    const other = await spawnServer(bin, ['--database-url', 'postgres://nobody@127.0.0.1:1/none'], {
      env: { NODE_OPTIONS: `--require ${hook}` },
      stderr: failed,
    });
    await other.callTool({ name: 'list_sprints', arguments: {} }).catch(() => {});
    await other.close();
    expect(failed.join('')).toContain('loaded pg');
  },
);
