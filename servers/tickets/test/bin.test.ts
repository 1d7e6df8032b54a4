import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  backupWithoutDataFile,
  callOk,
  loadsPostgresDriver,
  promptText,
  readText,
  spawnServer,
} from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { bin, binArgs, databaseUrlFor, engine, onPostgres } from './helpers.js';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it(`the built bin serves tools, resources and prompts over stdio on ${engine}`, async () => {
  const client = await spawnServer(bin, [...(await binArgs(dataDir)), '--user', 'ana']);
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-tickets', version: pkg.version });
    expect((await client.listTools()).tools).toHaveLength(18);
    await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    const created = await callOk<{ key: string }>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'Crash when saving a draft',
      type: 'bug',
      priority: 'urgent',
      assignee: 'me',
    });
    expect(created.key).toBe('SHIP-1');
    const found = await callOk<{ total: number; items: { key: string; assignee: string }[] }>(
      client,
      'search_tickets',
      { query: 'saving drafts', assignee: 'me' },
    );
    expect(found).toMatchObject({ total: 1, items: [{ key: 'SHIP-1', assignee: 'ana' }] });
    expect(await readText(client, 'tickets://SHIP-1')).toContain('Crash when saving a draft');
    expect(await readText(client, 'tickets://projects/SHIP')).toContain('SHIP-1');
    expect(await promptText(client, 'triage-ticket', { key: 'SHIP-1' })).toContain('`find_similar_tickets`');
  } finally {
    await client.close();
  }
});

it('stores half of a surrogate pair sent alone as U+FFFD, so sending it again changes nothing', async () => {
  // A client that cuts a string inside an emoji sends "\uD83D"; SQLite would store it as three U+FFFD.
  const client = await spawnServer(bin, [...(await binArgs(dataDir)), '--user', 'ana']);
  try {
    const cut = `Broken emoji ${'\u{1F600}'.slice(0, 1)}`;
    await callOk(client, 'create_project', { key: 'CUT', name: 'Cut text' });
    const created = await callOk<{ key: string; title: string }>(client, 'create_ticket', {
      project: 'CUT',
      title: cut,
      description: cut,
    });
    expect(created.title).toBe('Broken emoji \uFFFD');
    const again = await callOk(client, 'update_ticket', { key: created.key, title: cut, description: cut });
    expect(again).toMatchObject({ version: 1, changed: [] });
  } finally {
    await client.close();
  }
});

it('lists only read-only tools with --read-only', async () => {
  const client = await spawnServer(bin, [...(await binArgs(dataDir)), '--read-only']);
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual([
      'find_similar_tickets',
      'get_project_status',
      'get_ticket',
      'list_people',
      'list_projects',
      'search_tickets',
    ]);
  } finally {
    await client.close();
  }
});

it('takes --backup FILE through @shipyard/db: without a data file it exits 1 naming the file', () => {
  const run = backupWithoutDataFile(bin, 'tickets');
  expect(run.stderr).toContain(`backup failed: there is no data file ${run.dataFile} to back up`);
  expect(run.status).toBe(1);
});

// --backup copies and --check verifies the SQLite file; a PostgreSQL database has its own tools.
it.runIf(onPostgres)('refuses --backup and --check with a database URL and points to pg_dump', async () => {
  const url = await databaseUrlFor(dataDir);
  for (const flags of [['--backup', join(dataDir, 'copy.db')], ['--check']]) {
    const run = spawnSync(process.execPath, [bin, '--database-url', url, ...flags], { encoding: 'utf8' });
    expect(run.stderr).toContain(`${flags[0]} works on the SQLite data file`);
    expect(run.stderr).toContain('pg_dump');
    expect(run.status).not.toBe(0);
  }
});

// Cold start: the PostgreSQL driver loads only for a database URL.
it.skipIf(onPostgres)(
  'a start on SQLite never loads the PostgreSQL driver; one on a database URL does',
  async () => {
    expect(await loadsPostgresDriver(bin, dataDir, { name: 'list_projects', arguments: {} })).toEqual({
      sqlite: false,
      url: true,
    });
  },
);
