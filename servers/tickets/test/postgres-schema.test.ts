import { fileURLToPath } from 'node:url';
import { freshDatabase, startPostgres, testEngine } from '@shipyard/testing/postgres';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTicketsPostgres, type TicketsPgDatabase } from '../src/store/postgres/open.js';
import {
  matchesQuery,
  prefixCandidates,
  rankOf,
  type SearchWord,
  searchWords,
  tsQuery,
} from '../src/store/postgres/search-sql.js';

const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
const postgresMigrations = fileURLToPath(new URL('../drizzle-postgres', import.meta.url));
const onPostgres = testEngine() === 'postgres';

describe('searchWords', () => {
  it('splits as the SQLite search does: ASCII punctuation and controls separate, `*` after a word is a prefix', () => {
    expect(searchWords('deploy* the-api')).toEqual([
      { text: 'deploy', prefix: true },
      { text: 'the', prefix: false },
      { text: 'api', prefix: false },
    ]);
    // `*` alone, after punctuation or after one letter is no prefix; a word twice is asked once.
    expect(searchWords("a* x:* 'quoted' * Quoted\u0000nul")).toEqual([
      { text: 'a', prefix: false },
      { text: 'x', prefix: false },
      { text: 'quoted', prefix: false },
      { text: 'nul', prefix: false },
    ]);
    expect(searchWords("& | ! ( ) :* \\ '")).toEqual([]);
    expect(searchWords('foo\u2014bar\u2068Ana\u2069')).toEqual([
      { text: 'foo', prefix: false },
      { text: 'bar', prefix: false },
      { text: 'Ana', prefix: false },
    ]);
  });

  it('gives a prefix the words whose stems may be shorter than it', () => {
    expect(prefixCandidates('Integrat')).toContain('integration');
    expect(prefixCandidates('environm')).toContain('environment');
  });
});

describe.runIf(onPostgres)('the tickets schema on PostgreSQL', () => {
  let stop: (() => Promise<void>) | undefined;
  let serverUrl: string;
  let drop: () => Promise<void>;
  let url: string;
  let database: TicketsPgDatabase;

  beforeAll(async () => {
    serverUrl = process.env.SHIPYARD_TEST_DATABASE_URL?.trim() ?? '';
    if (!serverUrl) {
      const cluster = await startPostgres();
      stop = cluster.stop;
      serverUrl = cluster.url;
    }
    const fresh = await freshDatabase(serverUrl);
    url = fresh.url;
    drop = fresh.drop;
    database = await openTicketsPostgres(url, postgresMigrations);
    await database.pool.query(`INSERT INTO projects (key, name) VALUES ('SHIP', 'Shipyard')`);
  }, 60_000);

  afterAll(async () => {
    await database?.close();
    await drop?.();
    await stop?.();
  });

  let number = 0;
  /** A new ticket of SHIP; its id. */
  async function ticket(
    title: string,
    description = '',
    people: { assignee?: string; reporter?: string } = {},
  ) {
    number++;
    const created = await database.pool.query<{ id: number }>(
      `INSERT INTO tickets (project_id, number, key, title, description, type, assignee, reporter)
       VALUES ((SELECT id FROM projects WHERE key = 'SHIP'), $1, $2, $3, $4, 'task', $5, $6) RETURNING id`,
      [number, `SHIP-${number}`, title, description, people.assignee ?? null, people.reporter ?? null],
    );
    const id = created.rows[0]?.id;
    if (id === undefined) throw new Error('no ticket id');
    return id;
  }

  /** The ids of the tickets matching `words`, best first, with their ranks. */
  async function search(words: readonly SearchWord[]) {
    const query = tsQuery(words);
    if (!query) return [];
    const rows = await database.db.execute<{ id: number; rank: number }>(
      sql`SELECT id, ${rankOf(sql`search`, sql`q`)} AS rank
          FROM tickets, (SELECT ${query} AS q) AS query WHERE ${matchesQuery(sql`search`, sql`q`)} ORDER BY rank DESC, id`,
    );
    return rows.rows.map((row) => ({ id: Number(row.id), rank: Number(row.rank) }));
  }
  const ids = async (text: string) => (await search(searchWords(text))).map((hit) => hit.id);

  it('applies the migrations once; a second open changes nothing and keeps the data', async () => {
    const catalog = async (db: TicketsPgDatabase) =>
      (
        await db.pool.query<{ object: string }>(
          `SELECT c.relkind::text || ' ' || c.relname AS object FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'tickets'
           UNION ALL SELECT 'trigger ' || t.tgname FROM pg_trigger t
             JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'tickets' AND NOT t.tgisinternal
           UNION ALL SELECT 'function ' || p.proname FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'tickets'
           ORDER BY 1`,
        )
      ).rows.map((row) => row.object);
    const applied = async (db: TicketsPgDatabase) =>
      (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM tickets.__drizzle_migrations')).rows[0]
        ?.n;
    const id = await ticket('Kept across opens');
    const before = await catalog(database);
    expect(before).toEqual(
      expect.arrayContaining([
        'r tickets',
        'r people',
        'i tickets_search_idx',
        'i tickets_due_idx',
        'trigger people_ticket_insert',
        'trigger people_ticket_update',
        'trigger people_comment_insert',
        'function search_fold',
        'function nocase',
      ]),
    );
    expect(before.some((object) => /fts|tickets_indexed/.test(object))).toBe(false);
    expect(await applied(database)).toBe('1');

    const again = await openTicketsPostgres(url, postgresMigrations);
    try {
      expect(await catalog(again)).toEqual(before);
      expect(await applied(again)).toBe('1');
      const kept = await again.pool.query('SELECT title FROM tickets WHERE id = $1', [id]);
      expect(kept.rows).toEqual([{ title: 'Kept across opens' }]);
    } finally {
      await again.close();
    }
  });

  it('writes times, labels and due dates in the formats SQLite returns, ordered as SQLite orders them', async () => {
    const id = await ticket('Formats');
    await database.pool.query(`UPDATE tickets SET due_date = '2026-03-02' WHERE id = $1`, [id]);
    const row = (
      await database.pool.query<{ created_at: string; labels: string; due: string; none: string }>(
        `SELECT created_at, labels, coalesce(due_date, '~') AS due,
                (SELECT max(coalesce(due_date, '~')) FROM tickets) AS none FROM tickets WHERE id = $1`,
        [id],
      )
    ).rows[0];
    expect(row?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(row?.labels).toBe('[]');
    // A ticket without a due date sorts after every date, whatever the database's collation.
    expect(row?.none).toBe('~');
  });

  it('ranks a title match above a description match, and stems as SQLite does, keeping stop words', async () => {
    const inDescription = await ticket('Payment page', 'The checkout times out while loading');
    const inTitle = await ticket('Checkout fails', 'Nothing more to say');
    const unrelated = await ticket('Unrelated', 'nothing here');
    const hits = await search(searchWords('checkout'));
    expect(hits.map((hit) => hit.id)).toEqual([inTitle, inDescription]);
    expect(hits[0]?.rank).toBeGreaterThan(hits[1]?.rank ?? Number.POSITIVE_INFINITY);
    expect(await ids('loads')).toEqual([inDescription]);
    // No stop word list: `the` is a word, as in SQLite's index.
    expect(await ids('the checkout')).toEqual([inDescription]);
    expect(await ids('CHECKOUT Payment')).toEqual([inDescription]);
    expect(await ids('unrelated')).toEqual([unrelated]);
  });

  it('matches a prefix, and the words stored as a stem shorter than the prefix', async () => {
    const deployment = await ticket('Deployment stalls');
    const integration = await ticket('Integration suite', 'Fix the environment first');
    const installer = await ticket('Installing the agent');
    expect(await ids('deploy*')).toEqual([deployment]);
    expect(await ids('depl*')).toEqual([deployment]);
    // Without `*` a start of a word is no word.
    expect(await ids('depl')).toEqual([]);
    expect(await ids('integrat*')).toEqual([integration]);
    expect(await ids('environm*')).toEqual([integration]);
    expect(await ids('Instal* agent')).toEqual([installer]);
    expect(await ids('déploy*')).toEqual([deployment]);
  });

  it('reads hostile text only as words: no syntax error, no operator', async () => {
    const login = await ticket('Login broken', 'b c');
    await ticket('Logout', 'loginless');
    const hostile = [
      "'",
      "''",
      '&',
      '|',
      '!',
      ':*',
      '(',
      ')',
      '\\',
      '\\\\',
      '\u0000',
      "log'in",
      'login:*',
      "login' | 'x",
      '!login',
      'a & b | c',
      'login:A',
      '<->',
      '<2>',
      "\\'",
      'login\u0000broken',
    ];
    for (const text of hostile) {
      // Through the splitter, and as raw words that skipped it, prefix or not.
      await expect(search(searchWords(text))).resolves.toBeDefined();
      for (const prefix of [false, true]) {
        await expect(search([{ text, prefix }]), JSON.stringify({ text, prefix })).resolves.toBeDefined();
      }
    }
    // Operators in user text are punctuation: `!login` is login, `x | login` needs x too, `login:*` is no prefix.
    expect(await ids('!login')).toEqual([login]);
    expect(await ids('missing | login')).toEqual([]);
    expect(await ids('login:*')).toEqual([login]);
    expect(await ids("login' & !broken")).toEqual([login]);
    // A word made elsewhere is split as user text: `b | login*` is b and login*, not b or login*.
    expect(await search([{ text: "login' | 'logout", prefix: true }])).toEqual([]);
    expect((await search([{ text: 'b | login', prefix: true }])).map((hit) => hit.id)).toEqual([login]);
    expect(await search([{ text: 'x | login', prefix: true }])).toEqual([]);
    expect((await search([{ text: 'login:*', prefix: false }])).map((hit) => hit.id)).toEqual([login]);
  });

  it("finds for whole words the tickets SQLite's index finds", async () => {
    const documents = [
      ['Login page crashes', 'Users cannot log in since the release'],
      ['Crash on logout', 'stack trace attached: java.lang.NullPointerException'],
      ['Café menu', 'naïve rendering of accented names'],
      ['Upgrade to v1.2.3', 'see https://example.com/release-notes for in_progress items'],
      ['Deploying fails', "The deployment script doesn't run; user@example.org reported it"],
      ['Payments', 'Customer \u2068Ana\u2069 was charged twice \u2014 refunds needed'],
    ];
    const queries = [
      'crash',
      'crashes',
      'crashing',
      'log',
      'login',
      'the',
      'cafe',
      'CAFÉ',
      'naive',
      'accent',
      'release',
      'example',
      'com',
      'notes',
      'in_progress',
      '3',
      'v1',
      'deploy',
      'deployed',
      "doesn't",
      'user@example.org',
      'Ana',
      'refund',
      'twice charged',
      'java.lang',
      'NullPointerException',
      'stack traces',
      'items',
      'renders',
    ];
    const sqlite = new Database(':memory:');
    try {
      migrate(drizzle(sqlite), { migrationsFolder: migrations });
      sqlite.exec(`INSERT INTO projects (key, name) VALUES ('PARITY', 'Parity')`);
      await database.pool.query(`INSERT INTO projects (key, name) VALUES ('PARITY', 'Parity')`);
      const insert = `INSERT INTO tickets (project_id, number, key, title, description, type)
        VALUES ((SELECT id FROM projects WHERE key = 'PARITY'), $1, $2, $3, $4, 'task')`;
      for (const [i, [title, description]] of documents.entries()) {
        const values = [i + 1, `PARITY-${i + 1}`, title, description];
        sqlite.prepare(insert.replaceAll(/\$\d/g, '?')).run(...values);
        await database.pool.query(insert, values);
      }
      // The SQLite index takes new tickets in batches (src/domain/indexing.ts); here, all at once.
      sqlite.exec(`INSERT INTO tickets_fts(tickets_fts) VALUES ('rebuild')`);
      const onSqlite = (text: string) => {
        const match = searchWords(text)
          .map((word) => `"${word.text.replaceAll('"', '""')}"`)
          .join(' AND ');
        return sqlite
          .prepare<[string], { key: string }>(
            `SELECT t.key FROM tickets_fts JOIN tickets t ON t.id = tickets_fts.rowid
             WHERE tickets_fts MATCH ? ORDER BY t.key`,
          )
          .all(match)
          .map((row) => row.key);
      };
      const onPg = async (text: string) => {
        const query = tsQuery(searchWords(text));
        if (!query) return [];
        const rows = await database.db.execute<{ key: string }>(
          sql`SELECT key FROM tickets WHERE key LIKE 'PARITY-%' AND search @@ ${query} ORDER BY key`,
        );
        return rows.rows.map((row) => row.key);
      };
      const found = async (engine: 'sqlite' | 'postgres') => {
        const all: Record<string, string[]> = {};
        for (const text of queries) all[text] = engine === 'sqlite' ? onSqlite(text) : await onPg(text);
        return all;
      };
      const expected = await found('sqlite');
      expect(Object.values(expected).every((keys) => keys.length > 0)).toBe(true);
      expect(await found('postgres')).toEqual(expected);
    } finally {
      sqlite.close();
    }
  });

  it('records people as the SQLite triggers do: first spelling of a name in any ASCII case', async () => {
    // The same writes on both engines, in SQL both read.
    const writes = [
      `INSERT INTO projects (key, name) VALUES ('PEOPLE', 'People')`,
      ...[
        ["'Ana'", "'bob'"],
        ["'ANA'", "'Bob'"],
        ['NULL', "'Émile'"],
        ["'émile'", 'NULL'],
        ['NULL', 'NULL'],
      ].map(
        ([assignee, reporter], i) =>
          `INSERT INTO tickets (project_id, number, key, title, type, assignee, reporter)
           VALUES ((SELECT id FROM projects WHERE key = 'PEOPLE'), ${i + 1}, 'PEOPLE-${i + 1}', 'T', 'task', ${assignee}, ${reporter})`,
      ),
      `UPDATE tickets SET reporter = 'Cy' WHERE key = 'PEOPLE-1'`,
      `UPDATE tickets SET assignee = 'CY' WHERE key = 'PEOPLE-2'`,
      `INSERT INTO comments (ticket_id, author, body) VALUES ((SELECT id FROM tickets WHERE key = 'PEOPLE-1'), 'dee', 'x')`,
      `INSERT INTO comments (ticket_id, author, body) VALUES ((SELECT id FROM tickets WHERE key = 'PEOPLE-1'), 'DEE', 'x')`,
      `INSERT INTO comments (ticket_id, author, body) VALUES ((SELECT id FROM tickets WHERE key = 'PEOPLE-1'), NULL, 'x')`,
    ];
    const sqlite = new Database(':memory:');
    try {
      migrate(drizzle(sqlite), { migrationsFolder: migrations });
      for (const write of writes) sqlite.exec(write);
      const onSqlite = sqlite.prepare<[], { name: string }>('SELECT name FROM people').all();

      // A writer whose search_path does not name the schema: the triggers still find `people`.
      const client = await database.pool.connect();
      try {
        await client.query('SET search_path = public');
        for (const write of writes) {
          await client.query(
            write.replace(/\b(INSERT INTO|UPDATE|FROM) (projects|tickets|comments)\b/g, '$1 tickets.$2'),
          );
        }
      } finally {
        // Closed, not returned to the pool with another search_path.
        client.release(true);
      }
      const onPostgres = (await database.pool.query<{ name: string }>('SELECT name FROM people')).rows;
      const names = (rows: { name: string }[]) => rows.map((row) => row.name).sort();
      expect(names(onPostgres)).toEqual(names(onSqlite));
      expect(names(onPostgres)).toEqual(['Ana', 'Cy', 'bob', 'dee', 'Émile', 'émile'].sort());
    } finally {
      sqlite.close();
    }
  });
});
