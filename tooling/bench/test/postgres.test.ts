// `pnpm bench --database-url` end to end on the built snippets and example bins, on a throwaway cluster.
// Skipped where no PostgreSQL is installed. It checks that the harness works, never how fast anything is.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { postgresBinDir, startPostgres, type TestCluster } from '@shipyard/testing/postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const bench = fileURLToPath(new URL('../bench.mjs', import.meta.url));
const PASSWORD = 'bench-secret-7f3a';

describe.skipIf(postgresBinDir() === undefined)('pnpm bench --database-url', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startPostgres({ ...process.env, SHIPYARD_TEST_DATABASE_URL: '' });
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('measures each scenario on PostgreSQL, SQLite and the echo, and HTTP with one and two replicas', {
    timeout: 240_000,
  }, () => {
    // The cluster trusts local connections: the password is only there to be kept out of the output.
    const url = new URL(cluster.url);
    url.password = PASSWORD;
    const run = spawnSync(
      process.execPath,
      [bench, 'snippets', '--smoke', '--clients', '2', '--database-url', url.toString()],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('<!-- bench:snippets-postgres -->');
    expect(run.stdout).not.toContain('<!-- bench:snippets -->');
    for (const row of [
      '`save_snippet`, p50 ms',
      '`search_snippets`, words + language',
      '| one replica |',
      '| two replicas, one database |',
    ]) {
      expect(run.stdout).toContain(row);
    }
    expect(run.stdout).toMatch(
      /\| `save_snippet`, p50 ms \| \d+\.\d{3} \| \d+\.\d{3} \| \d+\.\d{3} \| \d+\.\d\dx \| \d+\.\d\dx \|/,
    );
    expect(run.stdout).not.toContain('n/a');
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  test('with auto starts a cluster of its own, and stops on a server that refuses a database URL', {
    timeout: 120_000,
  }, () => {
    const run = spawnSync(process.execPath, [bench, 'example', '--smoke', '--database-url', 'auto'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('example does not run on PostgreSQL');
    expect(run.stderr).toContain('stores only in SQLite');
    expect(run.stdout).not.toContain('<!-- bench:example');
  });
});
