import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgres, testEngine } from '../src/postgres.js';

describe('testEngine', () => {
  it('is SQLite unless SHIPYARD_TEST_DB says postgres, and refuses anything else', () => {
    expect(testEngine({})).toBe('sqlite');
    expect(testEngine({ SHIPYARD_TEST_DB: ' Postgres ' })).toBe('postgres');
    expect(() => testEngine({ SHIPYARD_TEST_DB: 'mysql' })).toThrow(
      'SHIPYARD_TEST_DB must be sqlite or postgres, got "mysql"',
    );
  });
});

describe('postgresBinDir', () => {
  it('takes the folder on the PATH that has both initdb and pg_ctl', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-bin-'));
    const half = join(dir, 'half');
    const whole = join(dir, 'whole');
    mkdirSync(half);
    mkdirSync(whole);
    writeFileSync(join(half, 'initdb'), '');
    for (const program of ['initdb', 'pg_ctl']) writeFileSync(join(whole, program), '');
    expect(postgresBinDir({ PATH: [half, whole].join(':') })).toBe(whole);
  });
});

describe('startPostgres', () => {
  it('uses the server SHIPYARD_TEST_DATABASE_URL names, starting nothing', async () => {
    const cluster = await startPostgres({ SHIPYARD_TEST_DATABASE_URL: 'postgres://ci@db:5432/postgres' });
    expect(cluster.url).toBe('postgres://ci@db:5432/postgres');
    await cluster.stop();
  });

  it.runIf(postgresBinDir() !== undefined)(
    'starts a throwaway cluster on a free loopback port, and removes it when stopped',
    async () => {
      const cluster = await startPostgres({ PATH: process.env.PATH });
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const { rows } = await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
      await client.end();
      expect(cluster.url).toMatch(/^postgres:\/\/shipyard@127\.0\.0\.1:\d+\/postgres$/);
      expect(existsSync(rows[0]?.dir ?? '')).toBe(true);
      await cluster.stop();
      expect(existsSync(rows[0]?.dir ?? '')).toBe(false);
    },
  );
});
