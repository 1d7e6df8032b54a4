// @shipyard/tickets: a create, a read, and a search at 100,000 tickets against the same question as a LIKE scan.
import { join } from 'node:path';
import { migrate, openDatabase } from '@shipyard/db';
import { insertRows, openSeedDatabase, type Value } from '../src/postgres.ts';
import { defineBench, type PostgresSeedContext, type SeedContext, type ToolCall } from '../src/scenario.ts';
import { prng, words } from '../src/seed.ts';

const PROJECT: ToolCall = { name: 'create_project', arguments: { key: 'BENCH', name: 'Benchmark' } };
const CREATE: ToolCall = {
  name: 'create_ticket',
  arguments: { project: 'BENCH', title: 'Benchmark ticket', type: 'task', labels: ['bench'] },
};

/** Words + two filters, taken in turn: first page of 20 with its total. */
const SEARCHES: ToolCall[] = [
  'checkout timeout',
  'login crash',
  'export broken',
  'search slow',
  'payment error',
  'upload fails',
  'dashboard',
  'sync',
].map((query) => ({
  name: 'search_tickets',
  arguments: { query, status: ['todo', 'in_progress'], priority: ['high'] },
}));

export default defineBench({
  coldStartTarget: 0.6,
  scenarios: [
    { name: '`create_ticket`', setup: [PROJECT], calls: [CREATE], target: 3 },
    {
      name: '`get_ticket`',
      setup: [PROJECT, CREATE],
      calls: [{ name: 'get_ticket', arguments: { key: 'BENCH-1' } }],
    },
    {
      name: '`search_tickets`, words + two filters, 100,000 tickets',
      seed: seedTickets,
      seedPostgres: seedTicketsPostgres,
      // The first search adds the seeded tickets to the full-text index, as after an upgrade.
      setup: [SEARCHES[0] as ToolCall],
      calls: SEARCHES,
      reference: { label: '`LIKE` scan', open: openLikeScan },
      runs: 50,
      target: 0.1,
    },
  ],
  throughput: {
    name: '`get_ticket`',
    setup: [PROJECT, CREATE],
    call: { name: 'get_ticket', arguments: { key: 'BENCH-1' } },
  },
});

const TICKETS = 100_000;
const SMOKE_TICKETS = 1_000;

const AREAS =
  words(`login signup checkout cart search export import dashboard settings profile billing invoice
  notifications editor upload download api webhook cache database sync payment report onboarding sidebar
  toolbar calendar scheduler comments mentions permissions roles audit backup restore migration analytics
  charts filters pagination sorting localization timezone email sms push avatar theme keyboard shortcuts
  clipboard drag drop preview thumbnail video audio player playlist subscription coupon refund shipping
  address map geolocation chat inbox attachment archive tags labels workspace team invite sso oauth token
  session password captcha rate limit queue worker cron logging metrics tracing alerting deploy rollback`);
const PROBLEMS =
  words(`crash crashes timeout error fails broken missing slow leak hangs freezes flickers duplicate
  wrong blank stale truncated misaligned unresponsive flaky corrupt overflow rejected ignored lost delayed`);
const CONTEXTS = [
  'on Safari',
  'on Firefox',
  'on mobile',
  'on Android',
  'on iOS',
  'after upgrade',
  'for admin users',
  'in dark mode',
  'when offline',
  'with large files',
  'on first load',
  'behind a proxy',
  'for new accounts',
  'under load',
  'with slow network',
  'in the EU region',
  'after logout',
  'with unicode names',
];
const VERBS =
  words(`Add Support Improve Refactor Migrate Document Remove Optimize Redesign Rewrite Split Cache
  Validate Localize Test Monitor Expose Simplify`);
const FILLER = words(`the a an of to in for on with when after before while user users page pages button form
  field value values list item items request response server client browser screen view panel dialog modal
  state data record records file files step steps expected actual result results version release customer
  customers reported sometimes always never again still only also now then first last new old large small
  empty full because since until during without between reproduce reproducible logs trace stack console
  network status code message shows show appears appear returns return takes take seconds minutes retry
  retries click clicks`);
const NAMES = words(
  'ana bo chen dara eli fatima gus hana ivan jo kai lena mo nia omar pia quinn rui sara tom',
);
const LABELS = words(
  'ui backend frontend mobile perf security a11y docs infra regression ux api data billing i18n',
);
const PROJECTS = ['SHIP', 'WEB', 'API', 'OPS'];
const STATUSES: [string, number][] = [
  ['backlog', 25],
  ['todo', 20],
  ['in_progress', 10],
  ['in_review', 5],
  ['done', 35],
  ['cancelled', 5],
];
const PRIORITIES: [string, number][] = [
  ['urgent', 3],
  ['high', 15],
  ['medium', 35],
  ['low', 27],
  ['none', 20],
];
const PRIORITY_RANK: Record<string, number> = { urgent: 0, high: 1, medium: 2, low: 3, none: 4 };
const TYPES: [string, number][] = [
  ['bug', 40],
  ['feature', 25],
  ['task', 25],
  ['chore', 10],
];

/** The projects' rows: id, key, name, last_number, created_at. */
type ProjectRow = [number, string, string, number, string];
/** A ticket's row, in the order of TICKET_COLUMNS. */
type TicketRow = Value[];

const TICKET_COLUMNS = ['id', 'project_id', 'number', 'key', 'title', 'description', 'type', 'status']
  .concat(['priority', 'priority_rank', 'assignee', 'reporter', 'labels', 'estimate', 'due_date'])
  .concat(['parent_id', 'version', 'created_at', 'updated_at']);

/**
 * Tickets with generated titles and descriptions, spread over four projects and two years, the same every
 * run for either engine; and the projects, with the last numbers of the tickets generated so far.
 */
function ticketRows(smoke: boolean): { tickets: Generator<TicketRow>; projects(): ProjectRow[] } {
  const count = smoke ? SMOKE_TICKETS : TICKETS;
  const random = prng(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const weighted = (pairs: [string, number][]): string => {
    let r = random() * pairs.reduce((sum, [, w]) => sum + w, 0);
    for (const [value, w] of pairs) {
      r -= w;
      if (r <= 0) return value;
    }
    return (pairs.at(-1) as [string, number])[0];
  };
  const cap = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
  const title = (type: string): string => {
    const area = pick(AREAS);
    if (type === 'bug') {
      const problem = pick(PROBLEMS);
      return random() < 0.6
        ? `${cap(area)} ${problem} ${pick(CONTEXTS)}`
        : `${cap(area)} ${pick(AREAS)} ${problem}`;
    }
    return `${pick(VERBS)} ${area} ${pick(AREAS)}${random() < 0.3 ? ` ${pick(CONTEXTS)}` : ''}`;
  };
  const description = (): string => {
    const sentences: string[] = [];
    for (let s = 2 + Math.floor(random() * 5); s > 0; s--) {
      const sentence: string[] = [];
      for (let w = 6 + Math.floor(random() * 12); w > 0; w--) {
        const r = random();
        sentence.push(r < 0.15 ? pick(AREAS) : r < 0.22 ? pick(PROBLEMS) : pick(FILLER));
      }
      sentences.push(`${cap(sentence.join(' '))}.`);
    }
    return sentences.join(' ');
  };
  const start = Date.parse('2024-01-01T00:00:00Z');
  const span = 2 * 365 * 24 * 3600 * 1000;
  const numbers = PROJECTS.map(() => 0);
  function* tickets(): Generator<TicketRow> {
    for (let id = 1; id <= count; id++) {
      const p = Math.floor(random() * PROJECTS.length);
      const number = (numbers[p] ?? 0) + 1;
      numbers[p] = number;
      const type = weighted(TYPES);
      const priority = weighted(PRIORITIES);
      const created = start + Math.floor((span * id) / count);
      const updated = created + Math.floor(random() * 60 * 24 * 3600 * 1000);
      const labels = [
        ...new Set(Array.from({ length: Math.floor(random() * 4) }, () => pick(LABELS))),
      ].sort();
      yield [
        id,
        p + 1,
        number,
        `${PROJECTS[p]}-${number}`,
        title(type),
        description(),
        type,
        weighted(STATUSES),
        priority,
        PRIORITY_RANK[priority] as number,
        random() < 0.25 ? null : pick(NAMES),
        pick(NAMES),
        JSON.stringify(labels),
        random() < 0.5 ? null : pick([1, 2, 3, 5, 8, 13]),
        random() < 0.8 ? null : new Date(updated + 30 * 24 * 3600 * 1000).toISOString().slice(0, 10),
        id > 100 && random() < 0.05 ? 1 + Math.floor(random() * (id - 1)) : null,
        1,
        new Date(created).toISOString(),
        new Date(updated).toISOString(),
      ];
    }
  }
  return {
    tickets: tickets(),
    projects: () =>
      PROJECTS.map((key, i) => [
        i + 1,
        key,
        `${key} project`,
        numbers[i] ?? 0,
        new Date(start).toISOString(),
      ]),
  };
}

/** The tickets written straight into the server's tables after its migrations. The full-text index is left to the server. */
function seedTickets({ dataDir, root, smoke }: SeedContext): void {
  const database = openDatabase({ server: 'tickets', dataDir });
  try {
    migrate(database, join(root, 'servers/tickets/drizzle'));
    const { sqlite } = database;
    const insertProject = sqlite.prepare(
      'INSERT INTO projects (id, key, name, last_number, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    const insertTicket = sqlite.prepare(
      `INSERT INTO tickets (${TICKET_COLUMNS.join(', ')}) VALUES (${TICKET_COLUMNS.map(() => '?').join(', ')})`,
    );
    const rows = ticketRows(smoke);
    sqlite.transaction(() => {
      // The projects first, for the tickets' foreign key; their last numbers once the tickets are in.
      for (const project of rows.projects()) insertProject.run(...project);
      for (const ticket of rows.tickets) insertTicket.run(...ticket);
      const setLast = sqlite.prepare('UPDATE projects SET last_number = ? WHERE id = ?');
      for (const [id, , , last] of rows.projects()) setLast.run(last, id);
    })();
    // No ANALYZE: a real tickets.db has no statistics either, and they change SQLite's plans.
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    database.close();
  }
}

/**
 * The same tickets in PostgreSQL (schema `tickets`, the same tables and columns as on SQLite), a batch of
 * rows per statement. Plain rows only: the stored search column is the database's to fill.
 */
async function seedTicketsPostgres({ databaseUrl, root, smoke }: PostgresSeedContext): Promise<void> {
  const database = await openSeedDatabase({ databaseUrl, root, server: 'tickets' });
  try {
    const rows = ticketRows(smoke);
    const inputs = ['id', 'key', 'name', 'last_number', 'created_at'];
    // The projects first, for the tickets' foreign key; their last numbers once the tickets are in.
    await insertRows(database, { table: 'projects', inputs, rows: rows.projects() });
    await insertRows(database, { table: 'tickets', inputs: TICKET_COLUMNS, rows: rows.tickets });
    for (const [id, , , last] of rows.projects()) {
      await database.pool.query('UPDATE projects SET last_number = $1 WHERE id = $2', [last, id]);
    }
  } finally {
    await database.close();
  }
}

/**
 * The search without an index: every word as LIKE '%word%' over title and description, the same filters,
 * newest first, a page of 20 and the total, on its own connection to the server's file.
 */
function openLikeScan({ dataDir }: SeedContext) {
  const database = openDatabase({ server: 'tickets', dataDir, readonly: true });
  const { sqlite } = database;
  return {
    run(call: ToolCall) {
      const input = call.arguments as { query: string; status: string[]; priority: string[] };
      const terms = input.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const where = terms.map(() => "(title LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')");
      const params: (string | number)[] = terms.flatMap((w) => [`%${w}%`, `%${w}%`]);
      where.push(`status IN (${input.status.map(() => '?').join(', ')})`);
      params.push(...input.status);
      where.push(`priority_rank IN (${input.priority.map(() => '?').join(', ')})`);
      params.push(...input.priority.map((p) => PRIORITY_RANK[p] as number));
      const filter = `WHERE ${where.join(' AND ')}`;
      const rows = sqlite
        .prepare(
          `SELECT key, title, type, status, priority, assignee, labels, updated_at FROM tickets ${filter}
           ORDER BY updated_at DESC, id DESC LIMIT 20`,
        )
        .all(...params);
      const total =
        rows.length < 20
          ? rows.length
          : sqlite
              .prepare(`SELECT count(*) FROM tickets ${filter}`)
              .pluck()
              .get(...params);
      return { rows, total };
    },
    close: () => database.close(),
  };
}
