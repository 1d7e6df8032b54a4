import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk } from '@shipyard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { connectSnippets, databaseUrlFor, onPostgres } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Two servers on one data (two processes on one SQLite file, two replicas on one PostgreSQL database). */
async function twoServers() {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-snippets-'));
  dirs.push(dataDir);
  const a = await connectSnippets({ dataDir });
  const b = await connectSnippets({ dataDir });
  const saved = await callOk<{ snippet: { id: string } }>(a.client, 'save_snippet', {
    title: 'Shared',
    code: 'shared()',
  });
  return { dataDir, a, b, id: saved.snippet.id };
}

const update = (client: Awaited<ReturnType<typeof connectSnippets>>['client'], id: string, code: string) =>
  client.callTool({ name: 'update_snippet', arguments: { id, expected_version: 1, code } });

/** The error code of a tool result, or 'ok'. */
const outcome = (result: Awaited<ReturnType<typeof update>>) =>
  result.isError
    ? (
        JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}') as {
          error: { code: string };
        }
      ).error.code
    : 'ok';

describe('two writers with the same expected_version', () => {
  it('give one success and one Conflict, and the losing edit is not written', async () => {
    const { a, b, id } = await twoServers();
    try {
      const results = await Promise.all([update(a.client, id, 'from(a)'), update(b.client, id, 'from(b)')]);
      expect(results.map(outcome).sort()).toEqual(['conflict', 'ok']);
      const now = await callOk<{ snippet: { code: string; version: number } }>(a.client, 'get_snippet', {
        id,
      });
      expect(now.snippet.version).toBe(2);
      expect(now.snippet.code).toBe(results[0]?.isError ? 'from(b)' : 'from(a)');
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });

  // Both writers are made to reach the snippet while a third transaction holds its row: a store that read
  // the version without locking it would let both pass the check and write twice.
  it.runIf(onPostgres)('on PostgreSQL, both released at once: one success and one Conflict', async () => {
    const { dataDir, a, b, id } = await twoServers();
    const { default: pg } = await import('pg');
    const blocker = new pg.Client({ connectionString: await databaseUrlFor(dataDir) });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM snippets.snippets WHERE id = $1 FOR UPDATE', [id]);
      const both = Promise.all([update(a.client, id, 'from(a)'), update(b.client, id, 'from(b)')]);
      await expect
        .poll(
          async () =>
            (
              await blocker.query<{ c: number }>(
                "SELECT count(*)::int AS c FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
              )
            ).rows[0]?.c,
          { timeout: 10_000 },
        )
        .toBe(2);
      await blocker.query('COMMIT');
      const results = await both;
      expect(results.map(outcome).sort()).toEqual(['conflict', 'ok']);
      const versions = await callOk<{ versions: unknown[] }>(a.client, 'get_snippet', { id });
      expect(versions).toMatchObject({ snippet: { version: 2 } });
    } finally {
      await blocker.end();
      await a.client.close();
      await b.client.close();
    }
  });
});
