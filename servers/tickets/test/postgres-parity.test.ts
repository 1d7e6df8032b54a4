/**
 * The PostgreSQL store's reads, comments and links against SQLite's: the same data on both engines, the
 * same calls, the same answers and errors; and links that together would close a cycle, sent at once.
 */
import { fileURLToPath } from 'node:url';
import { freshDatabase, startPostgres, testEngine } from '@shipyard/testing/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkWithin } from '../src/store/postgres/links.js';
import { openTicketsPostgres, type TicketsPgDatabase } from '../src/store/postgres/open.js';
import { createPostgresStore } from '../src/store/postgres/store.js';
import { lazyTicketsStore, openTicketsDatabase } from '../src/store/sqlite/open.js';
import type { TicketsStore } from '../src/store/types.js';

const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));
const onPostgres = testEngine() === 'postgres';

/** The columns both engines' tables have, copied from SQLite to PostgreSQL. */
const TABLES = {
  projects: ['id', 'key', 'name', 'description', 'last_number', 'created_at', 'archived_at'],
  tickets: [
    'id',
    'project_id',
    'number',
    'key',
    'title',
    'description',
    'type',
    'status',
    'priority',
    'priority_rank',
    'assignee',
    'reporter',
    'labels',
    'estimate',
    'due_date',
    'parent_id',
    'resolution',
    'version',
    'created_at',
    'updated_at',
  ],
  comments: ['id', 'ticket_id', 'author', 'body', 'created_at'],
  history: ['id', 'ticket_id', 'field', 'old_value', 'new_value', 'changed_by', 'changed_at'],
  links: ['id', 'source_id', 'type', 'target_id', 'created_by', 'created_at'],
} as const;

/** What a call gave: its value, or its error's class, message and hint. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await call() };
  } catch (error) {
    const { name, message, hint } = error as { name: string; message: string; hint?: string };
    return { error: { name, message, hint } };
  }
}

/** Times differ between the engines' runs of a write: each is replaced by a placeholder. */
const timeless = (value: unknown) =>
  JSON.parse(JSON.stringify(value).replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>'));

describe.runIf(onPostgres)('the PostgreSQL store against SQLite', () => {
  let stop: (() => Promise<void>) | undefined;
  let drop: (() => Promise<void>) | undefined;
  let pgDatabase: TicketsPgDatabase;
  let pg: TicketsStore;
  let lite: TicketsStore;
  let closeLite: () => void;

  beforeAll(async () => {
    let serverUrl = process.env.SHIPYARD_TEST_DATABASE_URL?.trim() ?? '';
    if (!serverUrl) {
      const cluster = await startPostgres();
      stop = cluster.stop;
      serverUrl = cluster.url;
    }
    const fresh = await freshDatabase(serverUrl);
    drop = fresh.drop;
    pgDatabase = await openTicketsPostgres(fresh.url, postgresMigrations);
    pg = createPostgresStore(async () => pgDatabase) as TicketsStore;

    const opened = lazyTicketsStore(() => openTicketsDatabase(':memory:', migrations));
    lite = opened.store;
    closeLite = () => opened.database.close();
    const by = 'ana';
    await lite.createProject({ key: 'SHIP', name: 'Shipyard' });
    await lite.createProject({ key: 'SHOP', name: 'Shop' });
    await lite.createProject({ key: 'OPS', name: 'Operations' });
    for (let n = 1; n <= 20; n++) {
      await lite.createTicket(
        {
          project: n % 5 === 0 ? 'SHOP' : 'SHIP',
          title: `Ticket ${n}`,
          description: `About ${n}`,
          labels: n % 2 ? ['api'] : [],
          parent: n > 3 && n % 5 !== 0 ? 'SHIP-1' : undefined,
          estimate: n % 3 ? 1.5 : null,
        },
        by,
      );
    }
    await lite.updateTicket({ key: 'SHIP-2', title: 'Renamed', priority: 'high' }, by);
    await lite.transitionTicket({ key: 'SHIP-3', status: 'done', comment: 'Shipped' }, by);
    await lite.transitionTicket({ key: 'SHIP-4', status: 'cancelled' }, 'bo');
    for (let n = 1; n <= 25; n++)
      await lite.addComment({ key: 'SHIP-1', body: `Comment ${n}` }, n % 2 ? by : 'bo');
    await lite.linkTickets({ key: 'SHIP-1', type: 'blocks', target: 'SHIP-2' }, by);
    await lite.linkTickets({ key: 'SHIP-2', type: 'blocks', target: 'SHIP-4' }, by);
    await lite.linkTickets({ key: 'SHIP-3', type: 'blocked_by', target: 'SHIP-1' }, by);
    await lite.linkTickets({ key: 'SHIP-5', type: 'relates', target: 'SHIP-1' }, by);
    // Open tickets first: SHIP-4 (cancelled) after SHIP-6.
    await lite.linkTickets({ key: 'SHIP-1', type: 'relates', target: 'SHIP-4' }, by);
    await lite.linkTickets({ key: 'SHIP-6', type: 'relates', target: 'SHIP-1' }, by);
    await lite.linkTickets({ key: 'SHOP-1', type: 'duplicates', target: 'SHIP-1' }, by);
    await lite.linkTickets({ key: 'SHIP-6', type: 'duplicated_by', target: 'SHIP-7' }, by);

    // More OPS tickets than a completion shows, some closed, straight into the table.
    const sqlite = opened.database.sqlite;
    const insert = sqlite.prepare(
      `INSERT INTO tickets (project_id, number, key, title, type, status, created_at, updated_at)
       VALUES (3, ?, ?, 'Bulk', 'task', ?, ?, ?)`,
    );
    for (let n = 1; n <= 130; n++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n % 7)).toISOString();
      insert.run(n, `OPS-${n}`, n % 4 ? 'todo' : 'done', at, at);
    }
    sqlite.prepare("UPDATE projects SET last_number = 130 WHERE key = 'OPS'").run();

    // The same rows on PostgreSQL, ids and all.
    for (const [table, columns] of Object.entries(TABLES)) {
      const rows = sqlite.prepare(`SELECT ${columns.join(', ')} FROM ${table} ORDER BY id`).all() as Record<
        string,
        unknown
      >[];
      for (const row of rows) {
        await pgDatabase.pool.query(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          columns.map((column) => row[column]),
        );
      }
      await pgDatabase.pool.query(
        `SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT coalesce(max(id), 1) FROM ${table}))`,
      );
    }
  }, 120_000);

  afterAll(async () => {
    closeLite?.();
    await pgDatabase?.close();
    await drop?.();
    await stop?.();
  });

  /** The same call on both stores gives the same answer or error. */
  async function same(call: (store: TicketsStore) => Promise<unknown>, mask = false) {
    const want = await outcome(() => call(lite));
    const got = await outcome(() => call(pg));
    if (mask) expect(timeless(got)).toEqual(timeless(want));
    else expect(got).toEqual(want);
    return got;
  }

  const BAD_KEYS = [
    'ship-1 ',
    'SHIP-99',
    'NOPE-1',
    'SHIP',
    'OPS',
    '1',
    '#5',
    'SHIP1',
    'SHIP 01',
    'SHIP-1, SHIP-2',
    'x',
  ];

  it('reads a ticket, its details, page, links and history as SQLite does', async () => {
    for (const key of ['SHIP-1', 'SHIP-2', 'SHIP-3', 'shop-1', ...BAD_KEYS]) {
      await same((s) => s.getTicket(key));
      await same((s) => s.getTicketDetails(key, ['comments', 'links', 'history']));
      await same((s) => s.getTicketDetails(key, []));
      await same((s) => s.ticketPage(key, { comments: 5, children: 3 }));
      await same((s) => s.ticketLinks(key));
      await same((s) => s.historyCount(key));
      for (const upto of [undefined, 0, 1, 3, 1000]) await same((s) => s.ticketHistory(key, upto, 2));
    }
    await same((s) => s.getTicketDetails('SHIP-1', ['comments'], 10));
    await same((s) => s.getTicketDetails('SHIP-1', ['comments'], 3_000_000_000));
    const links = (await same((s) => s.ticketLinks('SHIP-1'))) as {
      ok: { links: Record<string, unknown[]> };
    };
    expect(links.ok.links.blocks).toHaveLength(2);
  });

  it('lists recent tickets and completes keys as SQLite does', async () => {
    await same((s) => s.recentTickets(5));
    // Past the cap, the total is counted.
    expect(await same((s) => s.completeTicketKeys('OPS-'))).toEqual({
      ok: { values: expect.arrayContaining(['OPS-1', 'OPS-100']), total: 130 },
    });
    for (const typed of [
      '',
      'S',
      'sh',
      'O',
      'SHIP',
      'SHIP-',
      'ship-1',
      'SHOP-',
      'OPS-',
      'OPS-1',
      'OPS-12',
      'X-',
      '-',
      'SHIP-1-',
    ]) {
      await same((s) => s.completeTicketKeys(typed));
      await same((s) => s.completeTicketKeys(typed, { openOnly: true }));
    }
  });

  it('adds, edits and deletes comments as SQLite does', async () => {
    await same((s) => s.addComment({ key: 'ship-2', body: 'Looks good' }, 'ana'), true);
    await same((s) => s.addComment({ key: 'SHIP-99', body: 'x' }, 'ana'));
    await same((s) => s.addComment({ key: 'SHIP-2', body: 'anonymous' }, undefined), true);
    const last = (await lite.getTicketDetails('SHIP-2', ['comments'])).comments ?? [];
    const [mine, anonymous] = last.slice(-2).map((comment) => comment.id);
    if (mine === undefined || anonymous === undefined) throw new Error('no comments');
    await same((s) => s.updateComment({ key: 'SHIP-2', id: mine, body: 'Looks great' }, 'ANA'), true);
    await same((s) => s.updateComment({ key: 'SHIP-2', id: mine, body: 'Looks great' }, 'ana'), true);
    await same((s) => s.updateComment({ key: 'SHIP-2', id: mine, body: 'no' }, 'bo'));
    await same((s) => s.updateComment({ key: 'SHIP-2', id: mine, body: 'no' }, undefined));
    await same((s) => s.updateComment({ key: 'SHIP-2', id: anonymous, body: 'no' }, 'ana'));
    await same((s) => s.updateComment({ key: 'SHIP-1', id: mine, body: 'no' }, 'ana'));
    await same((s) => s.deleteComment({ key: 'SHIP-2', id: 1e12 }, 'ana'));
    await same((s) => s.deleteComment({ key: 'SHIP-2', id: -1 }, 'ana'));
    await same((s) => s.deleteComment({ key: 'SHIP-2', id: mine }, 'bo'));
    await same((s) => s.deleteComment({ key: 'SHIP-2', id: mine }, 'ana'), true);
    await same((s) => s.deleteComment({ key: 'SHIP-2', id: mine }, 'ana'));
    await same((s) => s.getTicketDetails('SHIP-2', ['comments', 'history']), true);
  });

  it('links and unlinks as SQLite does, refusing cycles with the same message', async () => {
    const calls: [method: 'linkTickets' | 'unlinkTickets', key: string, type: string, target: string][] = [
      ['linkTickets', 'SHIP-4', 'blocks', 'SHIP-1'],
      ['linkTickets', 'SHIP-1', 'blocked_by', 'SHIP-4'],
      ['linkTickets', 'SHIP-2', 'duplicates', 'SHIP-2'],
      ['linkTickets', 'SHIP-2', 'relates', 'SHIP-99'],
      ['linkTickets', 'SHIP-99', 'relates', 'SHIP-2'],
      ['linkTickets', 'SHIP-8', 'relates', 'SHIP-9'],
      ['linkTickets', 'SHIP-9', 'relates', 'SHIP-8'],
      ['linkTickets', 'SHIP-1', 'blocks', 'SHIP-2'],
      ['linkTickets', 'SHIP-2', 'blocked_by', 'SHIP-1'],
      ['linkTickets', 'SHIP-1', 'duplicated_by', 'SHOP-1'],
      ['linkTickets', 'SHIP-1', 'duplicates', 'SHOP-1'],
      ['linkTickets', 'SHIP-7', 'duplicates', 'SHIP-6'],
      ['unlinkTickets', 'SHIP-2', 'blocks', 'SHIP-1'],
      ['unlinkTickets', 'SHIP-2', 'relates', 'SHIP-1'],
      ['unlinkTickets', 'SHIP-8', 'blocks', 'SHIP-10'],
      ['unlinkTickets', 'SHIP-8', 'relates', 'SHIP-8'],
      ['unlinkTickets', 'SHIP-8', 'relates', 'SHIP-9'],
      ['unlinkTickets', 'SHIP-2', 'blocked_by', 'SHIP-1'],
      ['linkTickets', 'SHIP-4', 'blocks', 'SHIP-1'],
    ];
    for (const [method, key, type, target] of calls) {
      const input = { key, type, target } as Parameters<TicketsStore['linkTickets']>[0];
      await same((s) => s[method](input, 'ana'), true);
    }
    // A long chain's cycle is named by its ends.
    for (let n = 8; n < 14; n++) {
      await same(
        (s) => s.linkTickets({ key: `SHIP-${n}`, type: 'blocks', target: `SHIP-${n + 1}` }, 'ana'),
        true,
      );
    }
    await same((s) => s.linkTickets({ key: 'SHIP-12', type: 'blocks', target: 'SHIP-8' }, 'ana'));
    await same((s) => s.getTicketDetails('SHIP-1', ['links', 'history']), true);
    await same((s) => s.ticketHistory('SHIP-4', undefined, 50), true);
  });

  it('refuses one of two links sent at once that together would close a cycle', async () => {
    const ids = async (keys: string[]) => {
      for (const key of keys) expect((await pg.getTicket(key)).key).toBe(key);
    };
    await ids(['SHOP-2', 'SHOP-3']);
    for (let round = 0; round < 5; round++) {
      // A cycle of two: each link alone is fine.
      const results = await Promise.allSettled([
        pg.linkTickets({ key: 'SHOP-2', type: 'blocks', target: 'SHOP-3' }, 'ana'),
        pg.linkTickets({ key: 'SHOP-3', type: 'blocks', target: 'SHOP-2' }, 'bo'),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const [refused] = results.filter((result) => result.status === 'rejected');
      expect(String((refused as PromiseRejectedResult).reason.message)).toMatch(/would make a cycle/);
      const links = await pg.ticketLinks('SHOP-2');
      expect(links.links.blocks.length + links.links.blocked_by.length).toBe(1);
      const [added] = [...links.links.blocks, ...links.links.blocked_by];
      const type = links.links.blocks.length ? 'blocks' : 'blocked_by';
      await pg.unlinkTickets({ key: 'SHOP-2', type, target: added?.key ?? '' }, 'ana');
    }
  });

  it('refuses one of two links far apart that together would close a cycle of four', async () => {
    // SHIP-10 duplicates SHIP-11 and SHIP-12 duplicates SHIP-13; 11 -> 12 and 13 -> 10 together would close
    // 10 -> 11 -> 12 -> 13 -> 10, though the two writes lock no ticket in common.
    for (const [key, target] of [
      ['SHIP-10', 'SHIP-11'],
      ['SHIP-12', 'SHIP-13'],
    ] as const) {
      await pg.linkTickets({ key, type: 'duplicates', target }, 'ana');
    }
    // The first write stays open until the second waits for it.
    const client = await pgDatabase.pool.connect();
    try {
      await client.query('BEGIN');
      await linkWithin(client, { key: 'SHIP-11', type: 'duplicates', target: 'SHIP-12' }, 'ana');
      const second = outcome(() =>
        pg.linkTickets({ key: 'SHIP-13', type: 'duplicates', target: 'SHIP-10' }, 'bo'),
      );
      await expect
        .poll(async () => {
          const { rows } = await pgDatabase.pool.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows.length;
        })
        .toBe(1);
      await client.query('COMMIT');
      expect(await second).toEqual({
        error: {
          name: 'InvalidInput',
          message:
            'Linking SHIP-13 duplicates SHIP-10 would make a cycle: ' +
            'SHIP-10 duplicates SHIP-11 duplicates SHIP-12 duplicates SHIP-13 duplicates SHIP-10',
          hint: 'Remove one link of the cycle with unlink_tickets first, or link as relates',
        },
      });
    } finally {
      client.release();
    }
  });
  it('decides a comment edit on the comment as it is once the ticket is free, not as it was', async () => {
    const { comment } = await pg.addComment({ key: 'SHIP-9', body: 'Mine' }, 'ana');
    // Another writer holds SHIP-9 and deletes the comment; the edit and the delete sent meanwhile wait.
    const client = await pgDatabase.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT id FROM tickets WHERE key = 'SHIP-9' FOR UPDATE");
      const edit = outcome(() => pg.updateComment({ key: 'SHIP-9', id: comment.id, body: 'Edited' }, 'ana'));
      const remove = outcome(() => pg.deleteComment({ key: 'SHIP-9', id: comment.id }, 'ana'));
      await expect
        .poll(async () => {
          const { rows } = await pgDatabase.pool.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows.length;
        })
        .toBe(2);
      await client.query('DELETE FROM comments WHERE id = $1', [comment.id]);
      await client.query('COMMIT');
      const gone = {
        name: 'NotFound',
        message: `SHIP-9 has no comment ${comment.id}`,
        hint: 'Call get_ticket for SHIP-9 to see its comments and their ids',
      };
      expect(await edit).toEqual({ error: gone });
      expect(await remove).toEqual({ error: gone });
    } finally {
      client.release();
    }
  });
});
