import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, expect, it } from 'vitest';
import { connectSnippets, engine } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it(`tells subscribers of a write another process made on the same data (${engine})`, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-snippets-'));
  dirs.push(dataDir);
  const writer = await connectSnippets({ dataDir });
  const reader = await connectSnippets({ dataDir });
  try {
    const saved = await callOk<{ snippet: { id: string }; uri: string }>(writer.client, 'save_snippet', {
      title: 'Shared',
      code: 'shared()',
      tags: ['team'],
    });
    const updates = watchResourceUpdates(reader.client);
    await reader.client.subscribeResource({ uri: saved.uri });
    await reader.client.subscribeResource({ uri: 'snippets://tags/team' });
    // A first write heard: the reader watches. (PostgreSQL's listener also reports every subscription
    // once it listens, so only the second write below shows a write's own notice arriving.)
    await callOk(writer.client, 'update_snippet', {
      id: saved.snippet.id,
      expected_version: 1,
      code: 'shared(1)',
    });
    await expect.poll(() => updates.includes(saved.uri), { timeout: 5_000 }).toBe(true);
    updates.length = 0;
    await callOk(writer.client, 'update_snippet', {
      id: saved.snippet.id,
      expected_version: 2,
      code: 'shared(2)',
    });
    await expect
      .poll(() => [...new Set(updates)].sort(), { timeout: 5_000 })
      .toEqual([saved.uri, 'snippets://tags/team'].sort());
  } finally {
    await writer.client.close();
    await reader.client.close();
  }
});
