import { type FreshDatabase, freshDatabase, testDatabaseUrl } from '@shipyard/testing/postgres';
import { afterEach, describe, expect, it } from 'vitest';
import {
  listenChanges,
  NOTIFY_MAX_BYTES,
  notifyChanges,
  openPostgres,
  type PostgresDatabase,
  pgTransaction,
} from '../src/index.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setUp(): Promise<{
  database: FreshDatabase;
  writer: PostgresDatabase;
  heard: string[][];
  all: () => number;
}> {
  const database = await freshDatabase(testDatabaseUrl());
  cleanup.push(() => database.drop());
  const writer = await openPostgres({ url: database.url, server: 'tickets' });
  cleanup.push(() => writer.close());
  const heard: string[][] = [];
  let everything = 0;
  const listening = listenChanges({
    url: database.url,
    schema: 'tickets',
    changed: (...uris) => heard.push(uris),
    changedAll: () => {
      everything += 1;
    },
  });
  cleanup.push(listening);
  // Listening once a notice sent now arrives.
  await expect
    .poll(
      async () => {
        await notifyChanges(writer.pool, 'tickets', ['tickets://ready']);
        return heard.some((uris) => uris.includes('tickets://ready'));
      },
      { timeout: 10_000, interval: 50 },
    )
    .toBe(true);
  // Notices arrive in commit order: once a last one is heard, none of the polls' is still on its way.
  await notifyChanges(writer.pool, 'tickets', ['tickets://marker']);
  await expect.poll(() => heard.some((uris) => uris.includes('tickets://marker'))).toBe(true);
  heard.length = 0;
  // Once listening, everything counted as changed: notices from before it listened are gone.
  expect(everything).toBe(1);
  everything = 0;
  return { database, writer, heard, all: () => everything };
}

describe('change notices on PostgreSQL', () => {
  it("reach a listener when the write's transaction commits, and never when it rolls back", async () => {
    const { writer, heard } = await setUp();
    await expect(
      pgTransaction(writer.pool, async (tx) => {
        await notifyChanges(tx, 'tickets', ['tickets://SHIP-1']);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await pgTransaction(writer.pool, async (tx) => {
      await notifyChanges(tx, 'tickets', ['tickets://SHIP-2', 'tickets://SHIP-2', 'tickets://projects/SHIP']);
    });
    await expect
      .poll(() => heard, { timeout: 5_000 })
      .toEqual([['tickets://SHIP-2', 'tickets://projects/SHIP']]);
  });

  it('report everything as changed for a notice too large to list its URIs', async () => {
    const { writer, heard, all } = await setUp();
    const uris = Array.from({ length: 400 }, (_, i) => `tickets://SHIP-${i}-${'x'.repeat(20)}`);
    expect(JSON.stringify(uris).length).toBeGreaterThan(NOTIFY_MAX_BYTES);
    await notifyChanges(writer.pool, 'tickets', uris);
    await expect.poll(all, { timeout: 5_000 }).toBe(1);
    expect(heard).toEqual([]);
  });

  it('reconnect when the listening connection is lost, report everything as changed, and hear later notices', async () => {
    const { writer, heard, all } = await setUp();
    await writer.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'shipyard-listen-tickets' AND datname = current_database()",
    );
    await expect.poll(all, { timeout: 10_000 }).toBe(1);
    await expect
      .poll(
        async () => {
          await notifyChanges(writer.pool, 'tickets', ['tickets://SHIP-9']);
          return heard.some((uris) => uris.includes('tickets://SHIP-9'));
        },
        { timeout: 10_000, interval: 100 },
      )
      .toBe(true);
  });
});
