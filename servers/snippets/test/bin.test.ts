import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupWithoutDataFile, callOk, loadsPostgresDriver, spawnServer } from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { bin, binArgs, engine, onPostgres } from './helpers.js';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-snippets-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

it(`the built bin serves over stdio on ${engine}, with Linguist data loaded on first use`, async () => {
  const client = await spawnServer(bin, await binArgs(dataDir));
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-snippets', version: pkg.version });
    expect((await client.listTools()).tools).toHaveLength(9);
    const saved = await callOk<{
      snippet: { id: string; language: string };
      language_guessed_from: string;
      uri: string;
    }>(client, 'save_snippet', { title: 'Hello', code: '#!/usr/bin/env bash\necho hello', tags: ['demo'] });
    expect(saved.snippet.language).toBe('Shell');
    expect(saved.language_guessed_from).toBe('shebang');
    const read = await client.readResource({ uri: saved.uri });
    expect(read.contents[0]).toMatchObject({
      mimeType: 'text/x-sh',
      text: '#!/usr/bin/env bash\necho hello',
    });
    const found = await callOk<{ total: number }>(client, 'search_snippets', {
      query: 'hello',
      language: 'sh',
    });
    expect(found.total).toBe(1);
  } finally {
    await client.close();
  }
});

it('takes --backup FILE through @shipyard/db: without a data file it exits 1 naming the file', () => {
  const run = backupWithoutDataFile(bin, 'snippets');
  expect(run.stderr).toContain(`backup failed: there is no data file ${run.dataFile} to back up`);
  expect(run.status).toBe(1);
});

// Cold start: the PostgreSQL driver loads only for a database URL.
it.skipIf(onPostgres)(
  'a start on SQLite never loads the PostgreSQL driver; one on a database URL does',
  async () => {
    expect(
      await loadsPostgresDriver(bin, dataDir, {
        name: 'save_snippet',
        arguments: { title: 'Cold', code: 'cold()' },
      }),
    ).toEqual({
      sqlite: false,
      url: true,
    });
  },
);
