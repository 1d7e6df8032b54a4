#!/usr/bin/env node
// node tooling/bench/tickets-search.js [--tickets 100000] [--runs 50] [--warmup 5] [--seed-mode rebuild|batches]
//   [--keep] [--cache-mb N]
//
// Full-text search of @shipyard/tickets at scale. Seeds a temporary SQLite file (the server's migrations) with
// N realistic tickets from a seeded PRNG, then times, interleaved run by run:
//   - search_tickets with words and two filters (status todo|in_progress, priority high), first page of 20
//     with total, through a real MCP client over the in-memory transport (the honest number: protocol, zod,
//     JSON) and through the tool's handler (the same built code without the protocol);
//   - the naive alternative: the same words as LIKE '%word%' over title and description, the same filters,
//     newest first, LIMIT 20 and a COUNT, as raw SQL through better-sqlite3;
//   - for context: the handler's search right after the same search (the rounds above mostly follow scans
//     that empty the CPU's and SQLite's caches), one common word without filters (domain, plain FTS join,
//     LIKE), a listing without words, find_similar_tickets, a read of the largest project's status page,
//     and an MCP round trip that reads nothing (the protocol's floor).
// Target: search p50 <= 1/10 of the LIKE scan p50. Build first: pnpm --filter @shipyard/tickets build.
// Seeding inserts the tickets, then builds the full-text index in one statement, in id order, as a migration
// builds it (--seed-mode rebuild, the default), or in batches of 256 tickets as creates through the server
// write it (--seed-mode batches; servers/tickets/src/domain/indexing.ts).
// --cache-mb N sets SQLite's page cache of the connection to N MiB (what-if: @shipyard/db leaves the default
// of the SQLite that better-sqlite3 builds, 16,000 KiB, and the numbers without the flag are what the server
// runs). --keep keeps the database file.
// Output: a markdown table on stdout, raw numbers in tooling/bench/results/tickets-search.json (gitignored).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { latencySummary, ratio } from './lib/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const load = (path) => import(pathToFileURL(join(root, path)).href);

const { values: args } = parseArgs({
  options: {
    tickets: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '5' },
    'seed-mode': { type: 'string', default: 'rebuild' },
    keep: { type: 'boolean' },
    'cache-mb': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(
    'Usage: node tooling/bench/tickets-search.js [--tickets N] [--runs N] [--warmup N] [--seed-mode rebuild|batches] [--keep] [--cache-mb N]\n',
  );
  process.exit(0);
}
const whole = (value, name, min) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} wants a whole number >= ${min}, got ${value}`);
  return n;
};
const TICKETS = whole(args.tickets, 'tickets', 100);
const RUNS = whole(args.runs, 'runs', 1);
const WARMUP = whole(args.warmup, 'warmup', 0);
const SEED_MODE = args['seed-mode'];
const CACHE_MB = args['cache-mb'] === undefined ? undefined : whole(args['cache-mb'], 'cache-mb', 1);
if (SEED_MODE !== 'rebuild' && SEED_MODE !== 'batches') throw new Error('--seed-mode is rebuild or batches');

const log = (line) => process.stderr.write(`${line}\n`);
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function missingBuild(error) {
  log(`Could not load a built package (${error.message}).`);
  log('Build first: pnpm --filter @shipyard/tickets... build   (or pnpm build)');
  process.exit(1);
}
const { openDatabase, migrate } = await load('packages/db/dist/index.js').catch(missingBuild);
const { createTicketsServer } = await load('servers/tickets/dist/server.js').catch(missingBuild);
const { connect } = await load('packages/testing/dist/index.js').catch(missingBuild);
const { createLogger } = await load('packages/core/dist/index.js').catch(missingBuild);

// ---------------------------------------------------------------------------------------------------------
// Deterministic data

/** mulberry32: a small seeded PRNG, so every run indexes the same tickets. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(42);
const pick = (list) => list[Math.floor(random() * list.length)];
/** Pick by weights: [[value, weight], ...]. */
const weighted = (pairs) => {
  const total = pairs.reduce((sum, [, w]) => sum + w, 0);
  let r = random() * total;
  for (const [value, w] of pairs) {
    r -= w;
    if (r <= 0) return value;
  }
  return pairs[pairs.length - 1][0];
};

const AREAS = `login signup checkout cart search export import dashboard settings profile billing invoice
  notifications editor upload download api webhook cache database sync payment report onboarding sidebar
  toolbar calendar scheduler comments mentions permissions roles audit backup restore migration analytics
  charts filters pagination sorting localization timezone email sms push avatar theme keyboard shortcuts
  clipboard drag drop preview thumbnail video audio player playlist subscription coupon refund shipping
  address map geolocation chat inbox attachment archive tags labels workspace team invite sso oauth token
  session password captcha rate limit queue worker cron logging metrics tracing alerting deploy rollback`
  .split(/\s+/)
  .filter(Boolean);
const PROBLEMS =
  `crash crashes timeout error fails broken missing slow leak hangs freezes flickers duplicate wrong
  blank stale truncated misaligned unresponsive flaky corrupt overflow rejected ignored lost delayed`
    .split(/\s+/)
    .filter(Boolean);
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
  `Add Support Improve Refactor Migrate Document Remove Optimize Redesign Rewrite Split Cache Validate
  Localize Test Monitor Expose Simplify`
    .split(/\s+/)
    .filter(Boolean);
const FILLER =
  `the a an of to in for on with when after before while user users page pages button form field value
  values list item items request response server client browser screen view panel dialog modal state data
  record records file files step steps expected actual result results version release customer customers
  reported sometimes always never again still only also now then first last new old large small empty full
  because since until during without between reproduce reproducible logs trace stack console network status
  code message shows show appears appear returns return takes take seconds minutes retry retries click clicks`
    .split(/\s+/)
    .filter(Boolean);
const NAMES =
  `ana bo chen dara eli fatima gus hana ivan jo kai lena mo nia omar pia quinn rui sara tom`.split(/\s+/);
const LABELS =
  `ui backend frontend mobile perf security a11y docs infra regression ux api data billing i18n`.split(/\s+/);
const PROJECTS = ['SHIP', 'WEB', 'API', 'OPS'];
const STATUSES = [
  ['backlog', 25],
  ['todo', 20],
  ['in_progress', 10],
  ['in_review', 5],
  ['done', 35],
  ['cancelled', 5],
];
const PRIORITIES = [
  ['urgent', 3],
  ['high', 15],
  ['medium', 35],
  ['low', 27],
  ['none', 20],
];
const PRIORITY_RANK = { urgent: 0, high: 1, medium: 2, low: 3, none: 4 };
const TYPES = [
  ['bug', 40],
  ['feature', 25],
  ['task', 25],
  ['chore', 10],
];

function title(type) {
  const area = pick(AREAS);
  if (type === 'bug') {
    const problem = pick(PROBLEMS);
    return random() < 0.6
      ? `${cap(area)} ${problem} ${pick(CONTEXTS)}`
      : `${cap(area)} ${pick(AREAS)} ${problem}`;
  }
  return `${pick(VERBS)} ${area} ${pick(AREAS)}${random() < 0.3 ? ` ${pick(CONTEXTS)}` : ''}`;
}
const cap = (word) => word[0].toUpperCase() + word.slice(1);

function description() {
  const sentences = 2 + Math.floor(random() * 5);
  const parts = [];
  for (let s = 0; s < sentences; s++) {
    const words = 6 + Math.floor(random() * 12);
    const sentence = [];
    for (let w = 0; w < words; w++) {
      const r = random();
      sentence.push(r < 0.15 ? pick(AREAS) : r < 0.22 ? pick(PROBLEMS) : pick(FILLER));
    }
    parts.push(`${cap(sentence.join(' '))}.`);
  }
  return parts.join(' ');
}

// ---------------------------------------------------------------------------------------------------------
// Seed

const tmp = mkdtempSync(join(tmpdir(), 'tickets-search-bench-'));
const database = openDatabase({ server: 'tickets', dataDir: tmp });
migrate(database, join(root, 'servers/tickets/drizzle'));
const { sqlite } = database;

function seed() {
  const started = nowMs();
  const insertProject = sqlite.prepare(
    'INSERT INTO projects (key, name, last_number, created_at) VALUES (?, ?, ?, ?)',
  );
  const insertTicket = sqlite.prepare(
    `INSERT INTO tickets (id, project_id, number, key, title, description, type, status, priority, priority_rank,
       assignee, reporter, labels, estimate, due_date, parent_id, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
  );
  const start = Date.parse('2024-01-01T00:00:00Z');
  const span = 2 * 365 * 24 * 3600 * 1000;
  const counts = PROJECTS.map(() => 0);
  // The server's batch (servers/tickets/src/domain/indexing.ts): the tickets past the index's end.
  const indexPast = sqlite.prepare(
    `INSERT INTO tickets_fts (rowid, title, description) SELECT id, title, description
     FROM tickets WHERE id > (SELECT upto FROM tickets_indexed) ORDER BY id`,
  );
  const advance = sqlite.prepare('UPDATE tickets_indexed SET upto = (SELECT max(id) FROM tickets)');
  let indexMs = 0;
  const indexed = (/** @type {() => void} */ index) => {
    const t = nowMs();
    index();
    advance.run();
    indexMs += nowMs() - t;
  };
  const BATCH = 256;
  sqlite.transaction(() => {
    PROJECTS.forEach((key, i) => {
      insertProject.run(key, `${key} project`, 0, new Date(start).toISOString());
      counts[i] = 0;
    });
  })();
  // One transaction a batch of tickets: FTS5 writes what a transaction added to the index at its end.
  for (let first = 1; first <= TICKETS; first += BATCH)
    sqlite.transaction(() => {
      for (let id = first; id < first + BATCH && id <= TICKETS; id++) {
        const p = Math.floor(random() * PROJECTS.length);
        const number = ++counts[p];
        const type = weighted(TYPES);
        const priority = weighted(PRIORITIES);
        const created = start + Math.floor((span * id) / TICKETS);
        const updated = created + Math.floor(random() * 60 * 24 * 3600 * 1000);
        const labelCount = Math.floor(random() * 4);
        const labels = [...new Set(Array.from({ length: labelCount }, () => pick(LABELS)))].sort();
        insertTicket.run(
          id,
          p + 1,
          number,
          `${PROJECTS[p]}-${number}`,
          title(type),
          description(),
          type,
          weighted(STATUSES),
          priority,
          PRIORITY_RANK[priority],
          random() < 0.25 ? null : pick(NAMES),
          pick(NAMES),
          JSON.stringify(labels),
          random() < 0.5 ? null : pick([1, 2, 3, 5, 8, 13]),
          random() < 0.8 ? null : new Date(updated + 30 * 24 * 3600 * 1000).toISOString().slice(0, 10),
          id > 100 && random() < 0.05 ? 1 + Math.floor(random() * (id - 1)) : null,
          new Date(created).toISOString(),
          new Date(updated).toISOString(),
        );
      }
      if (SEED_MODE === 'batches') indexed(() => indexPast.run());
    })();
  sqlite.transaction(() => {
    PROJECTS.forEach((_, i) => {
      sqlite.prepare('UPDATE projects SET last_number = ? WHERE id = ?').run(counts[i], i + 1);
    });
    // Nothing is indexed yet: the batch's statement takes every ticket, in id order.
    if (SEED_MODE === 'rebuild') indexed(() => indexPast.run());
  })();
  // No ANALYZE: a real tickets.db has no statistics either, and they change SQLite's plans.
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return { seedMs: nowMs() - started, indexMs };
}

log(`seeding ${TICKETS.toLocaleString('en')} tickets (${SEED_MODE}) into ${tmp} ...`);
const seeded = seed();
if (CACHE_MB) sqlite.pragma(`cache_size = -${CACHE_MB * 1024}`);
log(`  seeded in ${(seeded.seedMs / 1000).toFixed(1)} s`);
const fts = sqlite
  .prepare('SELECT count(*) FROM tickets_fts WHERE tickets_fts MATCH \'"crash"\'')
  .pluck()
  .get();
const likeCheck = sqlite.prepare("SELECT count(*) FROM tickets WHERE title LIKE '%crash%'").pluck().get();
log(`  sanity: FTS rows with "crash" ${fts}, titles LIKE %crash% ${likeCheck}`);

// ---------------------------------------------------------------------------------------------------------
// What is measured

/** Queries rotated through the runs (the same rotation on every side), each with two filters. */
const FILTERED = [
  'checkout timeout',
  'login crash',
  'export broken',
  'search slow',
  'payment error',
  'upload fails',
  'dashboard',
  'sync',
].map((query) => ({ query, status: ['todo', 'in_progress'], priority: ['high'] }));
/** A broad single word with no filter: the most rows to rank and count. */
const BROAD = ['error', 'crash', 'user', 'page'].map((query) => ({ query }));

const definition = createTicketsServer({ db: database.db });
const tool = definition.tools.find((t) => t.name === 'search_tickets');
const ctx = {
  deps: definition.deps,
  user: 'ana',
  log: createLogger('tickets', { level: 'silent' }),
  changed() {},
  async progress() {},
  signal: new AbortController().signal,
};
// Answers checked as the bin checks them: the testing helper also parses each with zod, to catch a disagreement.
const client = await connect(definition, { user: 'ana', crossCheckOutputs: false });

async function viaClient(name, input) {
  const result = await client.callTool({ name, arguments: input });
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}
/** The tool's handler with the parsed input (what the runtime calls after zod): the domain search alone. */
const viaHandler = (input) => tool.handler(input, ctx);

/** The naive search: every word as LIKE over title and description, same filters, newest first, page + count. */
function likeScan(input) {
  const words = input.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const where = words.map(() => "(title LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')");
  const params = words.flatMap((w) => [`%${w}%`, `%${w}%`]);
  if (input.status) {
    where.push(`status IN (${input.status.map(() => '?').join(', ')})`);
    params.push(...input.status);
  }
  if (input.priority) {
    where.push(`priority_rank IN (${input.priority.map(() => '?').join(', ')})`);
    params.push(...input.priority.map((p) => PRIORITY_RANK[p]));
  }
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const rows = sqlite
    .prepare(
      `SELECT key, title, type, status, priority, assignee, labels, updated_at FROM tickets ${filter}
       ORDER BY updated_at DESC, id DESC LIMIT 20 OFFSET 0`,
    )
    .all(...params);
  const total =
    rows.length < 20
      ? rows.length
      : sqlite
          .prepare(`SELECT count(*) FROM tickets ${filter}`)
          .pluck()
          .get(...params);
  return { items: rows, total };
}

/**
 * Time every spec `RUNS` times, interleaved (run i of each spec in a shuffled order, then run i+1...) so that
 * whatever else the machine does lands on all sides alike; each spec rotates through its inputs. Warm-up first.
 */
async function measure(specs) {
  const results = Object.fromEntries(
    Object.entries(specs).map(([key, spec]) => [key, { label: spec.label, samples: [], totals: {} }]),
  );
  const order = Object.entries(specs);
  const shuffle = prng(7);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    // A new order each round: no side always runs right after the LIKE scans (which evict SQLite's page
    // cache) or right after the same query on another side (which warms it).
    for (let j = order.length - 1; j > 0; j--) {
      const k = Math.floor(shuffle() * (j + 1));
      [order[j], order[k]] = [order[k], order[j]];
    }
    for (const [key, spec] of order) {
      const input = spec.inputs[i % spec.inputs.length];
      // A spec with `again` runs its input once untimed first: the timed run finds the caches warm.
      if (spec.again) await spec.fn(input);
      const t = nowMs();
      const out = await spec.fn(input);
      const ms = nowMs() - t;
      if (i < WARMUP) continue;
      results[key].samples.push(ms);
      results[key].totals[input.query ?? input.title] = out.total ?? out.items.length;
    }
  }
  for (const result of Object.values(results)) {
    result.summary = latencySummary(result.samples);
    log(
      `  ${result.label}: p50 ${result.summary.p50.toFixed(2)} ms, p95 ${result.summary.p95.toFixed(2)} ms`,
    );
  }
  return results;
}

/** The plain join this search avoids: every FTS hit joined to its tickets row, for the page and the COUNT. */
function naiveJoin(input) {
  const match = input.query
    .match(/[\p{L}\p{N}]+/gu)
    .map((w) => `"${w}"`)
    .join(' ');
  const from = 'tickets_fts JOIN tickets ON tickets.id = tickets_fts.rowid WHERE tickets_fts MATCH ?';
  const items = sqlite
    .prepare(
      `SELECT tickets.key FROM ${from} ORDER BY bm25(tickets_fts, 1000.0, 1.0), tickets.id DESC LIMIT 20`,
    )
    .all(match);
  return { items, total: sqlite.prepare(`SELECT count(*) FROM ${from}`).pluck().get(match) };
}

const SIMILAR = [
  { title: 'Checkout timeout on Safari' },
  { title: 'Login crashes after upgrade', description: 'The login page crashes for admin users' },
  { title: 'Export dashboard charts to CSV' },
  { title: 'Payment webhook fails under load' },
];
const LIST = [{ status: ['todo', 'in_progress'], priority: ['high'] }];

// The plain join answers as the search does: a wrong join would time a different question.
for (const input of BROAD) {
  const [search, naive] = [await viaHandler(input), naiveJoin(input)];
  const keys = (items) => items.map((item) => item.key).join(' ');
  if (search.total !== naive.total || keys(search.items) !== keys(naive.items))
    throw new Error(`the plain join and the search disagree on "${input.query}"`);
}

log(`measuring ${RUNS} runs each (+${WARMUP} warm-up), interleaved ...`);
const rows = await measure({
  client: {
    label: 'search_tickets via MCP client, words + 2 filters',
    inputs: FILTERED,
    fn: (i) => viaClient('search_tickets', i),
  },
  handler: {
    label: 'search domain (tool handler, no protocol), words + 2 filters',
    inputs: FILTERED,
    fn: viaHandler,
  },
  handlerWarm: {
    label: 'search domain, words + 2 filters, the same search just before (warm caches)',
    inputs: FILTERED,
    fn: viaHandler,
    again: true,
  },
  like: { label: 'LIKE scan (raw SQL), same words + 2 filters', inputs: FILTERED, fn: likeScan },
  broadHandler: { label: 'search domain, one common word, no filter', inputs: BROAD, fn: viaHandler },
  broadNaive: { label: 'plain FTS join (page + COUNT), one common word', inputs: BROAD, fn: naiveJoin },
  broadLike: { label: 'LIKE scan, one common word, no filter', inputs: BROAD, fn: likeScan },
  list: { label: 'search domain, no words, 2 filters (a listing)', inputs: LIST, fn: viaHandler },
  floor: {
    label: 'MCP round trip that reads nothing (find_similar_tickets, title "!!!")',
    inputs: [{ title: '!!!' }],
    fn: (i) => viaClient('find_similar_tickets', i),
  },
  similar: {
    label: 'find_similar_tickets via MCP client',
    inputs: SIMILAR,
    fn: (i) => viaClient('find_similar_tickets', i),
  },
  projectPage: {
    label: 'read tickets://projects/SHIP via MCP client (a quarter of the tickets)',
    inputs: [{ query: 'tickets://projects/SHIP' }],
    fn: async ({ query }) => {
      const { contents } = await client.readResource({ uri: query });
      return { items: contents };
    },
  },
});
await client.close();

database.close();
if (args.keep) log(`kept the database: ${join(tmp, 'tickets.db')}`);
else rmSync(tmp, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------------------
// Report

const f = (ms) => ms.toFixed(2);
const r = (x) => (Number.isFinite(x) ? `${x.toFixed(3)} (1/${(1 / x).toFixed(0)})` : 'n/a');
const clientRatio = ratio(rows.client.summary.p50, rows.like.summary.p50);
const handlerRatio = ratio(rows.handler.summary.p50, rows.like.summary.p50);
const broadRatio = ratio(rows.broadHandler.summary.p50, rows.broadLike.summary.p50);
const TARGET = 1 / 10;
const verdict = (x) => (x <= TARGET ? 'PASS' : 'MISS');
const table = [
  `### tickets search, ${TICKETS.toLocaleString('en')} tickets (${RUNS} runs, Node ${process.version}, ${cpus()[0]?.model ?? 'cpu'}` +
    `${CACHE_MB ? `, what-if: SQLite page cache ${CACHE_MB} MiB` : ''})`,
  '',
  '| measurement | p50 ms | p95 ms |',
  '|---|---:|---:|',
  ...Object.values(rows).map((row) => `| ${row.label} | ${f(row.summary.p50)} | ${f(row.summary.p95)} |`),
  '',
  '| ratio (p50) | value | target |',
  '|---|---:|---|',
  `| search via MCP client / LIKE scan | ${r(clientRatio)} | <= ${TARGET.toFixed(3)} ${verdict(clientRatio)} |`,
  `| search domain / LIKE scan | ${r(handlerRatio)} | <= ${TARGET.toFixed(3)} ${verdict(handlerRatio)} |`,
  `| one common word: search domain / LIKE scan | ${r(broadRatio)} | none |`,
  '',
  `Words + 2 filters: ${FILTERED.map((q) => q.query).join(', ')} (status todo or in_progress, priority high), ` +
    `first page of 20 with total. Common words: ${BROAD.map((q) => q.query).join(', ')}.`,
  `Seeding: ${(seeded.seedMs / 1000).toFixed(1)} s (${SEED_MODE}, full-text index ${(seeded.indexMs / 1000).toFixed(1)} s).`,
].join('\n');
process.stdout.write(`${table}\n`);

const outDir = join(here, 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, CACHE_MB ? `tickets-search.cache-${CACHE_MB}mb.json` : 'tickets-search.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model,
      tickets: TICKETS,
      runs: RUNS,
      warmup: WARMUP,
      cacheMiB: CACHE_MB ?? null,
      seed: { mode: SEED_MODE, ms: seeded.seedMs, indexMs: seeded.indexMs },
      queries: { filtered: FILTERED, broad: BROAD, list: LIST, similar: SIMILAR },
      results: Object.fromEntries(
        Object.entries(rows).map(([key, row]) => [
          key,
          { label: row.label, ...row.summary, totals: row.totals, samples: row.samples },
        ]),
      ),
      ratios: {
        clientOverLike: clientRatio,
        domainOverLike: handlerRatio,
        broadDomainOverLike: broadRatio,
        target: TARGET,
      },
    },
    null,
    2,
  )}\n`,
);
log(`wrote ${join(outDir, CACHE_MB ? `tickets-search.cache-${CACHE_MB}mb.json` : 'tickets-search.json')}`);
