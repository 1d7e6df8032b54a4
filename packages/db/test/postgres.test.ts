import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FreshDatabase, freshDatabase, testDatabaseUrl } from '@shipyard/testing/postgres';
import { afterEach, describe, expect, it } from 'vitest';
import {
  chooseEngine,
  migratePostgres,
  openPostgres,
  type PostgresDatabase,
  postgresErrors,
  redactUrl,
} from '../src/index.js';

const MIGRATIONS = fileURLToPath(new URL('./fixtures/pg-migrations', import.meta.url));

function withExtraMigration(tag: string, sqlText: string): string {
  const folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'shipyard-pgmig-')), 'migrations');
  fs.cpSync(MIGRATIONS, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as {
    entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
  };
  const last = journal.entries.at(-1);
  if (last === undefined) throw new Error('empty journal');
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
  fs.writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  fs.writeFileSync(path.join(folder, `${tag}.sql`), sqlText);
  return folder;
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function fresh(): Promise<FreshDatabase> {
  const database = await freshDatabase(testDatabaseUrl());
  cleanup.push(() => database.drop());
  return database;
}

async function open(url: string, server = 'tickets'): Promise<PostgresDatabase> {
  const database = await openPostgres({ url, server });
  cleanup.push(() => database.close());
  return database;
}

describe('chooseEngine', () => {
  it('stores in SQLite without a URL, in PostgreSQL with a postgres:// or postgresql:// one', () => {
    expect(chooseEngine(undefined)).toEqual({ kind: 'sqlite' });
    expect(chooseEngine('  ')).toEqual({ kind: 'sqlite' });
    expect(chooseEngine('postgres://db/org')).toEqual({ kind: 'postgres', url: 'postgres://db/org' });
    expect(chooseEngine('PostgreSQL://db/org').kind).toBe('postgres');
  });

  it('refuses any other scheme, naming the scheme and not the password', () => {
    expect(() => chooseEngine('mysql://root:s3cret@db/org')).toThrow(
      /must start with postgres:\/\/ or postgresql:\/\/, got "mysql:\/\/…"/,
    );
    expect(() => chooseEngine('mysql://root:s3cret@db/org')).not.toThrow(/s3cret/);
    expect(() => chooseEngine('db/org')).toThrow(/got no scheme/);
    expect(redactUrl('postgres://ana:s3cret@db:5432/org')).toBe('postgres://ana:***@db:5432/org');
  });
});

describe('migratePostgres', () => {
  it("applies the migrations in the server's own schema once, recording them there", async () => {
    const { url } = await fresh();
    const database = await open(url, 'ci-tickets');
    expect(database.schema).toBe('ci_tickets');
    expect(await migratePostgres(database, MIGRATIONS)).toEqual({ applied: 1 });
    expect(await migratePostgres(database, MIGRATIONS)).toEqual({ applied: 0 });
    const tables = await database.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'ci_tickets' ORDER BY 1",
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(['__drizzle_migrations', 'items']);
    // Unqualified names resolve in the server's schema.
    await database.pool.query("INSERT INTO items (name) VALUES ('a')");
    expect((await database.pool.query('SELECT name FROM items')).rows).toEqual([{ name: 'a' }]);
  });

  it('keeps two servers apart in one database, each in its schema', async () => {
    const { url } = await fresh();
    const tickets = await open(url, 'tickets');
    const sprint = await open(url, 'sprint');
    await migratePostgres(tickets, MIGRATIONS);
    await migratePostgres(sprint, MIGRATIONS);
    await tickets.pool.query("INSERT INTO items (name) VALUES ('t')");
    expect((await sprint.pool.query('SELECT count(*)::int AS c FROM items')).rows[0]).toEqual({ c: 0 });
  });

  it('serializes processes that migrate at once under the advisory lock: the migrations apply once', async () => {
    const { url } = await fresh();
    const folder = withExtraMigration('0001_backfill', "INSERT INTO items (name) VALUES ('backfilled');");
    const databases = await Promise.all([1, 2, 3, 4].map(() => open(url)));
    const results = await Promise.all(databases.map((d) => migratePostgres(d, folder)));
    expect(results.map((r) => r.applied).sort()).toEqual([0, 0, 0, 2]);
    const rows = await databases[0]?.pool.query('SELECT name FROM items');
    // A data backfill run twice would have written two rows.
    expect(rows?.rows).toEqual([{ name: 'backfilled' }]);
  });

  it('refuses a schema a newer release has migrated, changing nothing', async () => {
    const { url } = await fresh();
    const database = await open(url);
    const newer = withExtraMigration('0001_labels', 'ALTER TABLE "items" ADD "label" text;');
    await migratePostgres(database, newer);
    const count = async () =>
      (await database.pool.query('SELECT count(*)::int AS c FROM __drizzle_migrations')).rows[0];
    const before = await count();
    await expect(migratePostgres(database, MIGRATIONS)).rejects.toThrow(
      /^Schema "tickets" of postgres:\/\/.* was migrated by a newer release of this server .* Nothing was changed: run the newer release, or give this one another database\.$/,
    );
    expect(await count()).toEqual(before);
    expect(await migratePostgres(database, newer)).toEqual({ applied: 0 });
  });

  it('rolls back every migration of a run when one fails, and records none', async () => {
    const { url } = await fresh();
    const database = await open(url);
    const broken = withExtraMigration('0001_broken', 'ALTER TABLE "nope" ADD "label" text;');
    await expect(migratePostgres(database, broken)).rejects.toThrow(/"nope" does not exist/);
    const found = await database.pool.query("SELECT to_regclass('tickets.items') AS t");
    expect(found.rows[0]).toEqual({ t: null });
    expect(await migratePostgres(database, MIGRATIONS)).toEqual({ applied: 1 });
  });

  it('opens with its migrations applied, and leaves no pool open when they fail', async () => {
    const { url } = await fresh();
    const database = await openPostgres({ url, server: 'tickets', migrations: MIGRATIONS });
    cleanup.push(() => database.close());
    expect(await migratePostgres(database, MIGRATIONS)).toEqual({ applied: 0 });
    const broken = withExtraMigration('0001_broken', 'ALTER TABLE "nope" ADD "label" text;');
    const before = await database.pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shipyard-sprint'",
    );
    await expect(openPostgres({ url, server: 'sprint', migrations: broken })).rejects.toThrow(
      /"nope" does not exist/,
    );
    const after = await database.pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shipyard-sprint'",
    );
    expect([before.rows[0].n, after.rows[0].n]).toEqual([0, 0]);
  });
});

describe('postgresErrors', () => {
  it('maps a serialization failure, a deadlock and a lock timeout to Conflict, a NUL in text to InvalidInput, and nothing else', () => {
    for (const code of ['40001', '40P01', '55P03']) {
      expect(postgresErrors(Object.assign(new Error('x'), { code }))?.code).toBe('conflict');
    }
    expect(postgresErrors(Object.assign(new Error('x'), { code: '22021' }))?.code).toBe('invalid_input');
    expect(postgresErrors(Object.assign(new Error('x'), { code: '23505' }))).toBeUndefined();
    expect(postgresErrors(Object.assign(new Error('x'), { code: 'SQLITE_BUSY' }))).toBeUndefined();
  });
});
