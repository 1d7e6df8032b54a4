import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '@shipyard/db';
import { callError, callOk, connect, readText, spawnServer, watchResourceUpdates } from '@shipyard/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTicketsServer } from '../src/server.js';
import { openTicketsDatabase } from '../src/store/sqlite/open.js';
import { schema } from '../src/store/sqlite/schema.js';
import { REPORT_CHUNK, watchOtherProcesses } from '../src/store/sqlite/watch.js';
import { bin, binArgs, createFromEach, migrations, onPostgres, storeOn, untilWatching } from './helpers.js';

// Needs the built bin: `pnpm --filter @shipyard/tickets build` (the package's test script builds first).

const PER_PROCESS = 500;

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-race-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

// It reads the SQLite file; postgres-concurrency.test.ts is its PostgreSQL twin.
it.skipIf(onPostgres)(
  'gives two processes on one data dir 1,000 ticket keys without gap or duplicate',
  async () => {
    const args = await binArgs(dataDir);
    const setup = await spawnServer(bin, [...args, '--user', 'setup']);
    try {
      await callOk(setup, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    } finally {
      await setup.close();
    }

    const stderr: string[] = [];
    const workers = await Promise.all(
      ['one', 'two'].map((user) => spawnServer(bin, [...args, '--user', user], { stderr })),
    );
    try {
      const created = await createFromEach(workers, PER_PROCESS);
      for (const keys of created) expect(keys).toHaveLength(PER_PROCESS);
      const returned = created.flat().sort();
      expect(new Set(returned).size).toBe(2 * PER_PROCESS);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr.join('').slice(-4_000)}`);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
    }

    const sqlite = new Database(join(dataDir, 'tickets.db'), { readonly: true, fileMustExist: true });
    try {
      const rows = sqlite.prepare('SELECT key, number, reporter FROM tickets ORDER BY number').all() as {
        key: string;
        number: number;
        reporter: string;
      }[];
      const expected = Array.from({ length: 2 * PER_PROCESS }, (_, i) => `SHIP-${i + 1}`);
      expect(rows.map((row) => row.key)).toEqual(expected);
      expect(rows.map((row) => row.number)).toEqual(expected.map((_, i) => i + 1));
      // Both processes really took part, their creations interleaved.
      const switches = rows.filter((row, i) => i > 0 && row.reporter !== rows[i - 1]?.reporter).length;
      expect(switches).toBeGreaterThan(20);
      const byReporter = sqlite
        .prepare('SELECT reporter, count(*) AS n FROM tickets GROUP BY reporter')
        .all();
      expect(byReporter).toEqual([
        { reporter: 'one', n: PER_PROCESS },
        { reporter: 'two', n: PER_PROCESS },
      ]);
      expect(sqlite.prepare('SELECT last_number AS n FROM projects WHERE key = ?').get('SHIP')).toEqual({
        n: 2 * PER_PROCESS,
      });
      // Every ticket got its `created` history row in the same transaction.
      expect(sqlite.prepare("SELECT count(*) AS n FROM history WHERE field = 'created'").get()).toEqual({
        n: 2 * PER_PROCESS,
      });
    } finally {
      sqlite.close();
    }
  },
  90_000,
);

it("notifies a process's subscribers of changes another process makes to the same data dir", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-watch-'));
  const args = await binArgs(dir);
  const [watcher, writer] = await Promise.all([
    spawnServer(bin, [...args, '--user', 'watcher']),
    spawnServer(bin, [...args, '--user', 'writer']),
  ]);
  try {
    await callOk(writer, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    await callOk(writer, 'create_project', { key: 'OPS', name: 'Operations' });
    for (const title of ['Watched', 'Other'])
      await callOk(writer, 'create_ticket', { project: 'SHIP', title });
    await callOk(writer, 'create_ticket', { project: 'SHIP', title: 'Child', parent: 'SHIP-1' });
    await callOk(writer, 'create_ticket', { project: 'SHIP', title: 'Unrelated' });
    await callOk(writer, 'create_ticket', { project: 'OPS', title: 'Blocked' });
    await callOk(writer, 'link_tickets', { key: 'SHIP-2', type: 'blocks', target: 'OPS-1' });
    const updates = watchResourceUpdates(watcher);
    await untilWatching(watcher, updates, [
      'tickets://ship-1',
      'tickets://SHIP-1/history',
      'tickets://projects/OPS',
      'tickets://SHIP-1/links',
      'tickets://projects',
    ]);
    // The watcher looks once a second; each step waits for its look.
    const after = async (change: () => Promise<unknown>, expected: string[]) => {
      updates.length = 0;
      await change();
      await expect.poll(() => [...new Set(updates)].sort(), { timeout: 10_000 }).toEqual(expected);
    };
    // A child's title shows on its parent's page.
    await after(
      () => callOk(writer, 'update_ticket', { key: 'SHIP-3', title: 'Child renamed' }),
      ['tickets://ship-1'],
    );
    // A blocker closed or reopened shows on the page of the project it blocks, and in the open counts.
    await after(
      () => callOk(writer, 'transition_ticket', { key: 'SHIP-2', status: 'cancelled' }),
      ['tickets://projects', 'tickets://projects/OPS'],
    );
    await after(
      () => callOk(writer, 'transition_ticket', { key: 'SHIP-2', status: 'todo' }),
      ['tickets://projects', 'tickets://projects/OPS'],
    );
    // A step between open statuses changes neither: only SHIP-1's change after it is heard.
    await after(async () => {
      await callOk(writer, 'transition_ticket', { key: 'SHIP-2', status: 'in_progress' });
      await callOk(writer, 'update_ticket', { key: 'SHIP-4', title: 'Not watched' });
      await callOk(writer, 'update_ticket', { key: 'SHIP-1', priority: 'high' });
    }, ['tickets://SHIP-1/history', 'tickets://ship-1']);
    // A comment writes no history.
    await after(
      () => callOk(writer, 'add_ticket_comment', { key: 'SHIP-1', body: 'Seen from the other process' }),
      ['tickets://ship-1'],
    );
    // A child moved to another parent leaves the children of the one it left.
    await after(
      () => callOk(writer, 'update_ticket', { key: 'SHIP-3', parent: 'SHIP-2' }),
      ['tickets://ship-1'],
    );
    // A link changes both tickets' links pages; a linked ticket's title shows on the other's.
    await after(
      () => callOk(writer, 'link_tickets', { key: 'SHIP-4', type: 'relates', target: 'SHIP-1' }),
      ['tickets://SHIP-1/history', 'tickets://SHIP-1/links', 'tickets://ship-1'],
    );
    await after(
      () => callOk(writer, 'update_ticket', { key: 'SHIP-4', title: 'Linked, renamed' }),
      ['tickets://SHIP-1/links', 'tickets://ship-1'],
    );
  } finally {
    await Promise.all([watcher.close(), writer.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A watcher on one connection to a fresh tickets file and a writer on another, as two processes would have
 * them; `use` starts the watch (every 20 ms) with the callback it wants. Both are closed afterwards.
 */
async function watchAndWrite(
  use: (connections: {
    writer: Database.Database;
    watching: Database.Database;
    watch: (changed: (...uris: string[]) => void) => void;
  }) => Promise<void>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-watch-'));
  const watching = openTicketsDatabase(dir, migrations);
  const writing = openTicketsDatabase(dir, migrations);
  let stop = () => {};
  try {
    await use({
      writer: writing.sqlite,
      watching: watching.sqlite,
      watch: (changed) => {
        stop = watchOtherProcesses(watching.db, changed, 20);
      },
    });
  } finally {
    stop();
    watching.close();
    writing.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Project SHIP with ticket SHIP-1, and a change of its title as a writer records it (history row included). */
function shipWithTicket(sql: Database.Database) {
  const at = '2026-01-01T00:00:00.000Z';
  sql.prepare("INSERT INTO projects (key, name, last_number, created_at) VALUES ('SHIP', 'S', 1, ?)").run(at);
  sql
    .prepare(
      `INSERT INTO tickets (project_id, number, key, title, description, type, created_at, updated_at)
       VALUES (1, 1, 'SHIP-1', 'One', '', 'task', ?, ?)`,
    )
    .run(at, at);
  return change(sql, 'title');
}

/** A change of one field of ticket `id` as a writer records it, history row included. */
function change(sql: Database.Database, field: 'title' | 'status' | 'priority' | 'labels', id = 1) {
  const at = '2026-01-01T00:00:00.000Z';
  return sql.transaction((value: string) => {
    sql.prepare(`UPDATE tickets SET ${field} = ?, updated_at = ? WHERE id = ?`).run(value, at, id);
    sql
      .prepare('INSERT INTO history (ticket_id, field, new_value, changed_at) VALUES (?, ?, ?, ?)')
      .run(id, field, value, at);
  });
}

// SQLite only from here: its other-process watcher, write lock and read snapshots.
it.skipIf(onPostgres)(
  'hears every change another process makes, even two to one ticket in one millisecond',
  async () => {
    await watchAndWrite(async ({ writer, watch }) => {
      const heard: string[] = [];
      const retitle = shipWithTicket(writer);
      watch((...uris) => heard.push(...uris));
      // Both changes carry the same updated_at as the ticket had when the watch started.
      retitle('Two');
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://SHIP-1');
      heard.length = 0;
      retitle('Three');
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://SHIP-1');
    });
  },
);

it.skipIf(onPostgres)("hears of a project another process creates, on the project's own page", async () => {
  await watchAndWrite(async ({ writer, watch }) => {
    const heard: string[] = [];
    shipWithTicket(writer);
    watch((...uris) => heard.push(...uris));
    writer
      .prepare(
        "INSERT INTO projects (key, name, created_at) VALUES ('NEWR', 'New', '2026-01-01T00:00:00.000Z')",
      )
      .run();
    await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://projects/NEWR');
    expect(heard).toContain('tickets://projects');
  });
});

it.skipIf(onPostgres)(
  "does not report this process's own changes again when another process next commits",
  async () => {
    await watchAndWrite(async ({ writer, watching, watch }) => {
      const heard: string[] = [];
      shipWithTicket(writer);
      watch((...uris) => heard.push(...uris));
      // This process's own change (reported as it was made), then a few looks.
      change(watching, 'title')('Own');
      await new Promise((resolve) => setTimeout(resolve, 100));
      writer
        .prepare(
          "INSERT INTO projects (key, name, created_at) VALUES ('NEWR', 'New', '2026-01-01T00:00:00.000Z')",
        )
        .run();
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://projects/NEWR');
      expect(heard).not.toContain('tickets://SHIP-1');
    });
  },
);

it.skipIf(onPostgres)(
  "reports another process's change on the pages that show what changed, as for this process's own",
  async () => {
    await watchAndWrite(async ({ writer, watch }) => {
      const heard: string[] = [];
      shipWithTicket(writer);
      writer
        .prepare(
          `INSERT INTO tickets (project_id, number, key, title, description, type, parent_id, created_at, updated_at)
         VALUES (1, 2, 'SHIP-2', 'Child', '', 'task', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
        )
        .run();
      watch((...uris) => heard.push(...uris));
      // A priority and a comment show on the ticket's pages only, not on its parent's or the project list.
      change(writer, 'priority', 2)('high');
      writer.prepare("INSERT INTO comments (ticket_id, body) VALUES (1, 'Noted')").run();
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://SHIP-1');
      expect(heard).toEqual(
        expect.arrayContaining(['tickets://SHIP-2', 'tickets://SHIP-2/history', 'tickets://projects/SHIP']),
      );
      expect(heard).not.toContain('tickets://projects');
      expect(heard).not.toContain('tickets://projects/SHIP/labels');
      expect(heard).not.toContain('tickets://SHIP-1/history');
      heard.length = 0;
      // A status shows on the parent's page (its children) and in the project list (open counts); the ticket
      // has no labels, so not on the labels page.
      change(writer, 'status', 2)('todo');
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://projects');
      expect(heard).toEqual(expect.arrayContaining(['tickets://SHIP-1', 'tickets://SHIP-2']));
      expect(heard).not.toContain('tickets://projects/SHIP/labels');
      heard.length = 0;
      // New labels show on the labels page, not in the project list.
      change(writer, 'labels', 2)('["ui"]');
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://projects/SHIP/labels');
      expect(heard).not.toContain('tickets://projects');
      heard.length = 0;
      // With labels, its opening or closing changes their open counts.
      change(writer, 'status', 2)('in_progress');
      await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://projects');
      expect(heard).toContain('tickets://projects/SHIP/labels');
    });
  },
);

it.skipIf(onPostgres)('reports a large catch-up in calls of at most REPORT_CHUNK URIs', async () => {
  await watchAndWrite(async ({ writer, watch }) => {
    const calls: string[][] = [];
    shipWithTicket(writer);
    watch((...uris) => calls.push(uris));
    const at = '2026-01-01T00:00:00.000Z';
    writer.transaction(() => {
      const ticket = writer.prepare(
        `INSERT INTO tickets (project_id, number, key, title, description, type, created_at, updated_at)
         VALUES (1, ?, ?, 't', '', 'task', ?, ?)`,
      );
      const created = writer.prepare(
        "INSERT INTO history (ticket_id, field, new_value, changed_at) VALUES (?, 'created', ?, ?)",
      );
      for (let n = 2; n <= 701; n++) {
        const { lastInsertRowid } = ticket.run(n, `SHIP-${n}`, at, at);
        created.run(lastInsertRowid, `SHIP-${n}`, at);
      }
    })();
    // Each ticket's page and history, its project's page, and the project list (none has labels).
    await expect.poll(() => new Set(calls.flat()).size, { timeout: 5_000 }).toBe(1 + 700 * 2 + 1);
    expect(Math.max(...calls.map((uris) => uris.length))).toBeLessThanOrEqual(REPORT_CHUNK);
  });
});

it.skipIf(onPostgres)('hears of a commit another process makes while the watch starts', async () => {
  await watchAndWrite(async ({ writer, watching, watch }) => {
    const heard: string[] = [];
    const retitle = shipWithTicket(writer);
    // Right after the watch reads where it starts from, the other process commits.
    const armed = commitAfterRead(
      watching,
      (source) => source.includes('max('),
      () => retitle('Two'),
    );
    watch((...uris) => heard.push(...uris));
    expect(armed.fired).toBe(true);
    await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://SHIP-1');
  });
});

it.skipIf(onPostgres)(
  'answers a write that waits out the lock of another process with a conflict to retry, and nothing written',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-busy-'));
    const database = openDatabase({ server: 'tickets', dataDir: dir, schema, busyTimeoutMs: 50 });
    migrate(database, migrations);
    const client = await connect(createTicketsServer({ store: storeOn(database) }), { user: 'ana' });
    const other = new Database(join(dir, 'tickets.db'));
    try {
      await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
      other.exec('BEGIN IMMEDIATE');
      const error = await callError(client, 'create_ticket', { project: 'SHIP', title: 'Waits' }, 'conflict');
      expect(error.message).toMatch(/database is busy/);
      expect(error.hint).toMatch(/retry/);
      other.exec('ROLLBACK');
      // The refused call took no number.
      expect(await callOk(client, 'create_ticket', { project: 'SHIP', title: 'Waits' })).toMatchObject({
        key: 'SHIP-1',
      });
    } finally {
      other.close();
      await client.close();
      database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

it.skipIf(onPostgres)('reports again what a look that failed halfway did not report', async () => {
  await watchAndWrite(async ({ writer, watch }) => {
    const heard: string[] = [];
    let failures = 1;
    const retitle = shipWithTicket(writer);
    watch((...uris) => {
      // The first look fails as it reports (as a read that fails halfway would); the next must not skip.
      if (failures-- > 0) throw new Error('failed halfway');
      heard.push(...uris);
    });
    retitle('Two');
    await expect.poll(() => heard, { timeout: 5_000 }).toContain('tickets://SHIP-1');
    expect(failures).toBeLessThan(0);
  });
});

/**
 * Makes the next statement prepared on `sqlite` whose SQL `starts` it run `commit` right after it reads
 * (once): what another process may do between two statements. `fired` says whether it has.
 */
function commitAfterRead(sqlite: Database.Database, starts: (source: string) => boolean, commit: () => void) {
  const prepare = sqlite.prepare.bind(sqlite);
  const state = { fired: false };
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    if (!starts(source)) return statement;
    state.fired = true;
    sqlite.prepare = prepare;
    // The statement as drizzle uses it (raw() and pluck() return it for chaining), committing as soon as it
    // has read.
    const proxy: typeof statement = new Proxy(statement, {
      get(target, name) {
        if (name === 'get' || name === 'all') {
          return (...params: unknown[]) => {
            const read = target[name](...params);
            commit();
            return read;
          };
        }
        if (name === 'raw' || name === 'pluck' || name === 'expand') {
          return (...toggle: boolean[]) => {
            target[name](...toggle);
            return proxy;
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return proxy;
  }) as typeof sqlite.prepare;
  return state;
}

/**
 * A database of tickets on a file, a client, and another connection; `arm` makes it commit `write` right
 * after this process runs the first statement that `starts` the SQL text (see {@link commitAfterRead}).
 */
async function withCommitBetween(starts: (source: string) => boolean, write: string) {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-snapshot-'));
  const database = openTicketsDatabase(dir, migrations);
  const client = await connect(createTicketsServer({ store: storeOn(database) }), { user: 'ana' });
  const other = new Database(join(dir, 'tickets.db'));
  const arm = () => commitAfterRead(database.sqlite, starts, () => other.prepare(write).run());
  const close = async () => {
    other.close();
    await client.close();
    database.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { client, arm, close };
}

it.skipIf(onPostgres)(
  "counts and pages a search in one snapshot, so another process's commit between them cannot split them",
  async () => {
    const { client, arm, close } = await withCommitBetween(
      (source) => source.startsWith('SELECT count(*)'),
      `INSERT INTO tickets (project_id, number, key, title, description, type) VALUES (1, 4, 'SHIP-4', 'Four', '', 'task')`,
    );
    try {
      await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
      for (const title of ['One', 'Two', 'Three'])
        await callOk(client, 'create_ticket', { project: 'SHIP', title });
      // Right after the listing counts its matches, another process adds a ticket.
      const state = arm();
      const page = await callOk<{ items: unknown[]; total: number }>(client, 'search_tickets', {
        project: 'SHIP',
      });
      expect(state.fired).toBe(true);
      expect({ items: page.items.length, total: page.total }).toEqual({ items: 3, total: 3 });
      expect((await callOk<{ total: number }>(client, 'search_tickets', { project: 'SHIP' })).total).toBe(4);
    } finally {
      await close();
    }
  },
);

it.skipIf(onPostgres)(
  "reads a ticket's page in one snapshot: a comment added meanwhile is neither counted nor listed",
  async () => {
    const { client, arm, close } = await withCommitBetween(
      (source) => /count\(\*\).*"comments"/s.test(source),
      `INSERT INTO comments (ticket_id, author, body, created_at) VALUES (1, 'bo', 'Late comment', '2026-01-01')`,
    );
    try {
      await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
      await callOk(client, 'create_ticket', { project: 'SHIP', title: 'One' });
      await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: 'First comment' });
      const state = arm();
      const page = await readText(client, 'tickets://SHIP-1');
      expect(state.fired).toBe(true);
      expect(page).toContain('## Comments (1)');
      expect(page).not.toContain('Late comment');
      expect(await readText(client, 'tickets://SHIP-1')).toContain('Late comment');
    } finally {
      await close();
    }
  },
);
