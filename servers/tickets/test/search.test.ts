import { charsToTokens, lintServer, toolListing } from '@shipyard/core/lint';
import { badValues, callError, callOk, checkBadInputs } from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRIORITIES, STATUSES } from '../src/domain/model.js';
import { PAGE_CHARS } from '../src/domain/search.js';
import { FTS_TOKENIZE } from '../src/store/sqlite/prefix.js';
import findSimilar from '../src/tools/find_similar_tickets.js';
import searchTicketsTool from '../src/tools/search_tickets.js';
import { connectTickets, onPostgres, seedProject, seedTicket, type TicketsClient } from './helpers.js';
import { connectWithSql, type TestSql } from './sql.js';

interface Item {
  key: string;
  title: string;
  status: string;
  priority: string;
  assignee: string | null;
  labels: string[];
  updated_at: string;
  description?: string;
  description_truncated?: boolean;
  [field: string]: unknown;
}
interface Page {
  items: Item[];
  next_cursor: string | null;
  total: number;
  note?: string;
}

let client: TicketsClient;
/** The connection, whose `database` is SQLite's (for the tests of what only SQLite has). */
let connected: Awaited<ReturnType<typeof connectWithSql>>;
let db: TestSql;
let closeSql: () => Promise<void>;
let definition: Awaited<ReturnType<typeof connectTickets>>['definition'];

const search = (args: Record<string, unknown> = {}) => callOk<Page>(client, 'search_tickets', args);
const keys = async (args: Record<string, unknown> = {}) => (await search(args)).items.map((item) => item.key);

/** `count` cancelled tickets of no priority titled `<word> filler <n>` (numbers from 1000 up). */
function fillers(word: string, count: number) {
  const rows = Array.from({ length: count }, (_, i) => [
    1000 + i,
    `SHIP-${1000 + i}`,
    `${word} filler ${1000 + i}`,
  ]);
  return db.batch(
    `INSERT INTO tickets (project_id, number, key, title, type, status, priority, priority_rank, created_at,
       updated_at) VALUES (1, ?, ?, ?, 'task', 'cancelled', 'none', 4, '2025-01-01T00:00:00.000Z',
       '2025-01-01T00:00:00.000Z')`,
    rows,
  );
}

/** Set columns the tools do not let us set directly (status without transitions, timestamps). */
async function setRow(key: string, set: { status?: string; updated_at?: string; created_at?: string }) {
  if (set.status) await db.run('UPDATE tickets SET status = ? WHERE key = ?', set.status, key);
  if (set.updated_at) await db.run('UPDATE tickets SET updated_at = ? WHERE key = ?', set.updated_at, key);
  if (set.created_at) await db.run('UPDATE tickets SET created_at = ? WHERE key = ?', set.created_at, key);
}

beforeEach(async () => {
  connected = await connectWithSql();
  ({ client, definition, sql: db, closeSql } = connected);
  await seedProject(client);
});
afterEach(async () => {
  await client?.close();
  await closeSql?.();
});

describe('text search', () => {
  it('ranks a title match above a description-only match', async () => {
    await seedTicket(client, {
      title: 'Update the docs',
      description: 'The crash on login is mentioned here',
    });
    await seedTicket(client, { title: 'Crash on login', description: 'Steps to reproduce' });
    await seedTicket(client, { title: 'Unrelated work', description: 'Nothing to see' });
    const page = await search({ query: 'crash' });
    expect(page.items.map((item) => item.key)).toEqual(['SHIP-2', 'SHIP-1']);
    expect(page.total).toBe(2);
    expect(page.next_cursor).toBeNull();
  });

  it('ranks a title match first even when its description is long (a pasted log)', async () => {
    // bm25 normalises by the length of the whole ticket, so with a light title weight a long description
    // sank a title match below a one-word mention in a short description.
    const log = Array.from({ length: 300 }, (_, i) => `worker ${i} retried the queue job and timed out`);
    await seedTicket(client, { title: 'Refund webhook retries forever', description: log.join('\n') });
    await seedTicket(client, { title: 'Tidy logging config', description: 'The refund code logs too much.' });
    for (let i = 0; i < 10; i++) await seedTicket(client, { title: `Filler ${i}`, description: 'Short.' });
    expect(await keys({ query: 'refund' })).toEqual(['SHIP-1', 'SHIP-2']);
  });

  it('finds the ticket itself for a query that is exactly its key, within the filters', async () => {
    await seedTicket(client, { title: 'Ship the 5 widgets', description: 'ship 5 of them' });
    await seedTicket(client, { title: 'Login fails', priority: 'high' });
    await seedTicket(client, { title: 'Duplicate of SHIP-2', description: 'See SHIP-2' });
    for (const query of ['SHIP-2', ' ship-2 ']) {
      const page = await search({ query });
      expect(page.items.map((item) => item.key)).toEqual(['SHIP-2']);
      expect(page.total).toBe(1);
    }
    expect((await search({ query: 'SHIP-2', priority: ['low'] })).total).toBe(0);
    // A key that names no ticket is searched as words, as any other text.
    expect(await keys({ query: 'SHIP-5' })).toEqual(['SHIP-1']);
    // Its cursor is its own: not one of the listing without words.
    const listing = await search({ limit: 1 });
    await callError(
      client,
      'search_tickets',
      { query: 'SHIP-2', cursor: listing.next_cursor },
      'invalid_input',
    );
  });

  it('needs every word, matches stems, and takes a trailing * as a prefix', async () => {
    await seedTicket(client, { title: 'App crashes when saving files' });
    await seedTicket(client, { title: 'Saving is slow' });
    await seedTicket(client, { title: 'Authentication timeout' });
    expect(await keys({ query: 'crash saving' })).toEqual(['SHIP-1']);
    expect(await keys({ query: 'CRASHED' })).toEqual(['SHIP-1']);
    expect(await keys({ query: 'auth' })).toEqual([]);
    expect(await keys({ query: 'auth*' })).toEqual(['SHIP-3']);
  });

  it('finds words by a prefix longer than their porter stem, without broadening short prefixes', async () => {
    // The index stores stems: integration -> integr, synchronization -> synchron, logging -> log,
    // performance -> perform, authentication -> authent, so these prefixes run past what is stored.
    await seedTicket(client, { title: 'Slack integration breaks on synchronization' });
    await seedTicket(client, { title: 'Logging performance' });
    await seedTicket(client, { title: 'Authentication timeout' });
    await seedTicket(client, { title: 'Login fails', description: 'Logic error in the login form' });
    await seedTicket(client, { title: 'Password reset' });
    await seedTicket(client, { title: 'Passing tests' });
    for (const query of ['integrat*', 'synchroniz*', 'Intégrat*', 'integrat* slack']) {
      expect(await keys({ query })).toEqual(['SHIP-1']);
    }
    for (const query of ['logg*', 'loggi*', 'performan*']) expect(await keys({ query })).toEqual(['SHIP-2']);
    expect(await keys({ query: 'authenticat*' })).toEqual(['SHIP-3']);
    // Every word must still match, and the expansion is only for a prefix.
    expect(await keys({ query: 'integrat* logging' })).toEqual([]);
    expect(await keys({ query: 'integrat' })).toEqual([]);
    // Short prefixes stay prefixes of what is stored: logi* is not widened to the stem "log" (logging).
    expect(await keys({ query: 'logi*' })).toEqual(['SHIP-4']);
    expect((await keys({ query: 'log*' })).sort()).toEqual(['SHIP-2', 'SHIP-4']);
    // A consonant is not a suffix porter strips: passw* is not widened to "pass" (passing).
    expect(await keys({ query: 'passw*' })).toEqual(['SHIP-5']);
  });

  it('finds a word by any prefix, where porter changes the prefix or stores less than it', async () => {
    // Stored as: deploy, deploi, analyt, environ, happi, hope, univers, organ, adjust, avail, reliabl, file, dy.
    const titles = [
      'Deployment fails on staging',
      'Deploying twice',
      'Analytics dashboard empty',
      'Environment variables ignored',
      'Happiness survey',
      'Hopeful estimate',
      'University login',
      'Organization settings',
      'Adjustment of rates',
      'Availability report',
      'Reliability goals',
      'Filing a claim',
      'Dying worker',
      'Index rebuild',
      'Input lag',
      'Install script',
    ];
    for (const title of titles) await seedTicket(client, { title });
    const found = async (query: string) => (await keys({ query })).sort();
    expect(await found('deploy*')).toEqual(['SHIP-1', 'SHIP-2']);
    const cases: [string, string][] = [
      ['analy*', 'SHIP-3'],
      ['environm*', 'SHIP-4'],
      ['happin*', 'SHIP-5'],
      ['hopef*', 'SHIP-6'],
      ['universi*', 'SHIP-7'],
      ['organizati*', 'SHIP-8'],
      ['adjustm*', 'SHIP-9'],
      ['availabili*', 'SHIP-10'],
      ['reliabi*', 'SHIP-11'],
      ['fili*', 'SHIP-12'],
      ['dyi*', 'SHIP-13'],
      ['ins*', 'SHIP-16'],
      ['install*', 'SHIP-16'],
    ];
    for (const [query, key] of cases) expect(await found(query), query).toEqual([key]);
  });

  it('expands a prefix with letters beyond a-z or digits too, folded as the index folds it', async () => {
    const titles = [
      'Z łatwymi danymi',
      'żółtych ikon',
      'utf8ing decoder',
      'ＡＰＩ ｄｅｐｌｏｙ 失敗',
      'ﬁle upload',
      'API deploy',
    ];
    for (const title of titles) await seedTicket(client, { title });
    const found = async (query: string) => (await keys({ query })).sort();
    // Porter turns a final y into i whatever the letters before it: łatwy* was read as łatwi*.
    expect(await found('łatwy*')).toEqual(['SHIP-1']);
    expect(await found('Żółty*')).toEqual(['SHIP-2']);
    expect(await found('utf8i*')).toEqual(['SHIP-3']);
    // Full-width letters and ligatures stay as the index keeps them, not turned into a-z.
    expect(await found('ＡＰＩ*')).toEqual(['SHIP-4']);
    expect(await found('ｄｅｐｌｏｙ*')).toEqual(['SHIP-4']);
    expect(await found('ﬁle*')).toEqual(['SHIP-5']);
  });

  it('splits a query into words as the index splits its text, so a word is found as it is written', async () => {
    const titles = [
      'Ship it\u{1F980}fast',
      'Price \u20BD100 wrong',
      '\u1EB8\u0301k\u1ECD\u0301 module fails',
      'i\u0307stanbul office',
      'Crash on save',
    ];
    for (const title of titles) await seedTicket(client, { title });
    // The index reads a character its Unicode tables do not know (a newer emoji, the ruble sign) as a letter.
    expect(await keys({ query: 'it\u{1F980}fast' })).toEqual(['SHIP-1']);
    expect(await keys({ query: '\u20BD100' })).toEqual(['SHIP-2']);
    // It drops marks that have no composed form, and so does the query: the word as written finds it.
    expect(await keys({ query: '\u1EB8\u0301k\u1ECD\u0301' })).toEqual(['SHIP-3']);
    expect(await keys({ query: '\u1EB9\u0301k\u1ECD\u0301*' })).toEqual(['SHIP-3']);
    expect(await keys({ query: 'eko' })).toEqual(['SHIP-3']);
    expect(await keys({ query: 'i\u0307stanbul' })).toEqual(['SHIP-4']);
    // Bidi isolates, which some apps put around a pasted name, separate words (the index's tables predate them).
    await seedTicket(client, { title: 'Assigned to \u2068Ana\u2069 by the bot' });
    expect(await keys({ query: 'ana' })).toEqual(['SHIP-6']);
    expect(await keys({ query: 'Assigned to \u2068Ana\u2069' })).toEqual(['SHIP-6']);
    // Characters the index ignores make no word, rather than an empty one that matches nothing. (SQLite's
    // tables are older than Unicode 8, where these New Tai Lue signs became letters, as PostgreSQL reads them.)
    if (!onPostgres) expect(await keys({ query: 'crash \u19B0\u19B1' })).toEqual(['SHIP-5']);
    // The same word twice is one word.
    expect(await keys({ query: 'crash* crash* CRASH*' })).toEqual(['SHIP-5']);
  });

  it('finds every word by each of its prefixes of three or more letters', async () => {
    const words =
      `authentication authorization synchronization configuration deployment integration notification
      performance availability reliability scalability migration serialization validation permission dashboard
      analytics environment happiness hopeful university organization adjustment filing dying relational
      generalization helpfulness effectiveness callousness rotational conditional dependencies replacement
      caching logging installing uploaded crashes sessions timezone keyboard shortcuts`.split(/\s+/);
    for (const word of words) await seedTicket(client, { title: `${word} ticket` });
    const missed: string[] = [];
    for (const [i, word] of words.entries()) {
      for (let end = 3; end <= word.length; end++) {
        const prefix = word.slice(0, end);
        if (!(await keys({ query: `${prefix}*`, limit: 100 })).includes(`SHIP-${i + 1}`))
          missed.push(`${prefix}*`);
      }
    }
    expect(missed).toEqual([]);
  });

  it.skipIf(onPostgres)('asks porter with the tokenizer of tickets_fts', () => {
    const created = connected.database.sqlite
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'tickets_fts'")
      .pluck()
      .get() as string;
    expect(created).toContain(`tokenize='${FTS_TOKENIZE.replaceAll("'", "''")}'`);
  });

  it('searches accented and non-Latin words', async () => {
    await seedTicket(client, { title: 'Café menu broken' });
    await seedTicket(client, { title: 'Übersetzung fehlt für 東京' });
    expect(await keys({ query: 'cafe' })).toEqual(['SHIP-1']);
    expect(await keys({ query: 'übersetzung' })).toEqual(['SHIP-2']);
    // The same words with their accents typed apart (decomposed, as some keyboards send them).
    expect(await keys({ query: 'U\u0308bersetzung' })).toEqual(['SHIP-2']);
    expect(await keys({ query: 'U\u0308bers*' })).toEqual(['SHIP-2']);
  });

  it('searches FTS and SQL syntax as plain words and never fails on it', async () => {
    await seedTicket(client, { title: 'foo and bar' });
    await seedTicket(client, { title: 'title x near a b' });
    await seedTicket(client, { title: 'a or b' });
    for (const query of [
      'foo AND (',
      '"unbalanced',
      '*',
      'NEAR(a b)',
      'title:x',
      '-foo',
      'a OR b',
      ...badValues,
    ]) {
      if (query.length > 500) continue;
      await search({ query });
    }
    expect(await keys({ query: 'foo AND (' })).toEqual(['SHIP-1']);
    expect(await keys({ query: '-foo' })).toEqual(['SHIP-1']);
    expect(await keys({ query: 'title:x' })).toEqual(['SHIP-2']);
    expect((await keys({ query: 'NEAR(a b)' })).sort()).toEqual(['SHIP-2']);
    // "or" is a word here, not an operator: only the ticket with a, or and b matches.
    expect(await keys({ query: 'a OR b' })).toEqual(['SHIP-3']);
    // No words left: a plain listing.
    expect((await search({ query: '*' })).total).toBe(3);
    expect((await search({ query: '"; DROP TABLE tickets; --' })).total).toBe(0);
    expect((await search()).total).toBe(3);
  });

  it('searches up to 16 words and refuses more, rather than dropping some', async () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => `w${i}`).join(' ');
    await seedTicket(client, { title: sixteen });
    expect(await keys({ query: sixteen })).toEqual(['SHIP-1']);
    const error = await callError(
      client,
      'search_tickets',
      { query: `${sixteen} notthere` },
      'invalid_input',
    );
    expect(error.message).toContain('more than 16 words');
    expect(error.hint).toContain('16 or fewer');
    // Of which at most 4 prefixes: each reads the hits of every word it starts.
    expect(await keys({ query: 'w1* w2* w3* w4* w5' })).toEqual(['SHIP-1']);
    const prefixes = await callError(
      client,
      'search_tickets',
      { query: 'w1* w2* w3* w4* w5*' },
      'invalid_input',
    );
    expect(prefixes.message).toContain('more than 4 words ending in *');
    expect(prefixes.hint).toContain('write the others whole');
  });

  it('finds a word inside a run of text written without spaces by the run start and *', async () => {
    await seedTicket(client, { title: '日本語のチケット' });
    expect(await keys({ query: '日本*' })).toEqual(['SHIP-1']);
    expect(await keys({ query: '日本語のチケット' })).toEqual(['SHIP-1']);
    expect(await keys({ query: 'チケット' })).toEqual([]);
  });

  it('counts words as they are written: a Hindi word is one, though its vowel signs split it for the index', async () => {
    const words = ['त्रुटि', 'लॉगिन', 'पृष्ठ', 'पर', 'दिखाई', 'देती', 'है', 'जब', 'उपयोगकर्ता', 'आता'];
    const { key } = await seedTicket(client, { title: words.join(' ') });
    expect(await keys({ query: words.join(' ') })).toEqual([key]);
    expect(await keys({ query: 'त्रुटि' })).toEqual([key]);
    const seventeen = [...words, ...words.slice(0, 7)].join(' ');
    await callError(client, 'search_tickets', { query: seventeen }, 'invalid_input');
  });

  it('reads control characters in a query as spaces', async () => {
    await seedTicket(client, { title: 'Login crash', priority: 'high' });
    expect(await keys({ query: 'login\u0001crash' })).toEqual(['SHIP-1']);
    expect(await keys({ query: 'login\u0007crash' })).toEqual(['SHIP-1']);
  });

  it('refuses a query with no word in it, and lists by the filters for none, a blank one or *', async () => {
    await seedTicket(client, { title: 'Rocket launch' });
    for (const query of ['🚀', '!!!', '-- ** --']) {
      const error = await callError(client, 'search_tickets', { query }, 'invalid_input');
      expect(error.message).toContain('no word');
      expect(error.hint).toContain('leave out query');
    }
    // Text that shows nothing is blank too: a zero-width space, a BOM, an ideographic space, controls.
    for (const query of [
      '',
      '   ',
      '*',
      '* *',
      '\u200b',
      '\ufeff',
      '\u3000',
      '\u2066\u2069',
      '\u0001 *',
      '\ufe0f',
    ])
      expect((await search({ query })).total).toBe(1);
  });
});

describe('filters', () => {
  beforeEach(async () => {
    await seedProject(client, 'WEB', 'Website');
    await seedTicket(client, {
      title: 'Login crash',
      priority: 'high',
      type: 'bug',
      assignee: 'me',
      labels: ['Auth'],
    });
    await seedTicket(client, {
      title: 'Login page copy',
      priority: 'low',
      assignee: 'bo',
      labels: ['ui', 'auth'],
    });
    await seedTicket(client, {
      title: 'Login metrics',
      priority: 'urgent',
      type: 'feature',
      parent: 'SHIP-1',
    });
    await seedTicket(client, {
      project: 'WEB',
      title: 'Login button colour',
      priority: 'high',
      labels: ['ui'],
    });
    await setRow('SHIP-2', { status: 'in_progress' });
    await setRow('SHIP-3', { status: 'done' });
  });

  it('says which labels or names in use a filter that found nothing may have meant', async () => {
    await seedTicket(client, { title: 'Copy review', labels: ['needs review'], assignee: 'Chloé' });
    await seedTicket(client, { title: 'Code review', labels: ['needs-review'], assignee: 'chloé' });
    await seedTicket(client, { title: 'Other review', labels: ['needs review'], assignee: 'Chloé' });
    const label = await callOk<Page>(client, 'search_tickets', { label: 'Needs_Review' });
    expect(label.total).toBe(0);
    expect(label.note).toBe(
      'Found nothing: no ticket has the label "needs_review"; labels in use like it: "needs review" (2), "needs-review" (1)',
    );
    // A tool stores chloé as the Chloé already known, and a filter takes her name in any case; Chloe is not
    // her name, but looks like it.
    expect((await callOk<Page>(client, 'search_tickets', { assignee: 'CHLOÉ' })).total).toBe(3);
    const name = await callOk<Page>(client, 'search_tickets', { assignee: 'Chloe' });
    expect(name.note).toBe(
      'Found nothing: no ticket is assigned to "Chloe"; names in use like it: "Chloé" (3)',
    );
    // A label or name in use that the other filters rule out, or nothing like it: nothing to suggest.
    const ruledOut = await callOk<Page>(client, 'search_tickets', {
      label: 'needs review',
      status: ['done'],
    });
    const widen =
      'Nothing matches: drop a filter or a word to widen the search, or create_ticket for new work';
    expect(ruledOut).toEqual({ items: [], next_cursor: null, total: 0, note: widen });
    expect((await callOk<Page>(client, 'search_tickets', { label: 'nothing' })).note).toBe(widen);
    // Found something: no note.
    expect((await callOk<Page>(client, 'search_tickets', { label: 'ui' })).note).toBeUndefined();
  });

  it('by project, and an unknown project is not_found', async () => {
    expect((await keys({ project: 'WEB' })).sort()).toEqual(['WEB-1']);
    expect((await keys({ query: 'login', project: 'SHIP' })).sort()).toEqual(['SHIP-1', 'SHIP-2', 'SHIP-3']);
    const error = await callError(client, 'search_tickets', { project: 'NOPE' }, 'not_found');
    expect(error.hint).toContain('list_projects');
  });

  it('by one status as well as a list, written in any case', async () => {
    expect((await keys({ status: 'backlog' })).sort()).toEqual(['SHIP-1', 'WEB-1']);
    expect((await keys({ status: 'In Progress' })).sort()).toEqual(['SHIP-2']);
    expect((await keys({ status: ['In Review', 'done'] })).sort()).toEqual(['SHIP-3']);
    const error = await callError(client, 'search_tickets', { status: 'started' }, 'invalid_input');
    expect(error.message).toContain('`status[0]`');
    expect(error.message).toContain('backlog');
  });

  it('by status and priority lists, and type', async () => {
    expect((await keys({ status: ['backlog'] })).sort()).toEqual(['SHIP-1', 'WEB-1']);
    expect((await keys({ status: ['in_progress', 'done'] })).sort()).toEqual(['SHIP-2', 'SHIP-3']);
    expect((await keys({ priority: ['high'] })).sort()).toEqual(['SHIP-1', 'WEB-1']);
    expect((await keys({ priority: ['urgent', 'low'] })).sort()).toEqual(['SHIP-2', 'SHIP-3']);
    expect(await keys({ type: 'feature' })).toEqual(['SHIP-3']);
    expect((await keys({ query: 'login', status: ['backlog', 'done'], priority: ['high'] })).sort()).toEqual([
      'SHIP-1',
      'WEB-1',
    ]);
  });

  it('by status and priority with words, as they change (the index holds the pair)', async () => {
    // 200 cancelled tickets of no priority add hits no check below asks for. setRow moved SHIP-2 to
    // in_progress and SHIP-3 to done with plain UPDATEs, after they were indexed.
    await fillers('Login', 200);
    const both = (status: string[], priority: string[]) => keys({ query: 'login', status, priority });
    expect(await both(['in_progress'], ['low'])).toEqual(['SHIP-2']);
    expect(await both(['done'], ['urgent', 'low'])).toEqual(['SHIP-3']);
    expect(await both(['backlog'], ['urgent', 'low'])).toEqual([]);
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'todo' });
    await callOk(client, 'update_ticket', { key: 'SHIP-1', priority: 'low' });
    expect(await both(['todo'], ['low'])).toEqual(['SHIP-1']);
    expect(await both(['todo', 'backlog'], ['high'])).toEqual(['WEB-1']);
    expect((await both(['todo', 'in_progress'], ['low', 'high'])).sort()).toEqual(['SHIP-1', 'SHIP-2']);
    // Every status and priority listed is no filter at all.
    const every = { status: [...STATUSES], priority: [...PRIORITIES] };
    expect((await search({ query: 'login', ...every })).total).toBe(204);
    // A rare word, and a ticket in todo, between the statuses asked for in the workflow: left out.
    const { key } = await seedTicket(client, { title: 'Metrics export', priority: 'urgent' });
    await callOk(client, 'transition_ticket', { key, status: 'todo' });
    expect(await keys({ query: 'metrics', status: ['backlog', 'done'], priority: ['urgent'] })).toEqual([
      'SHIP-3',
    ]);
    expect(await keys({ query: 'metrics', status: ['todo'], priority: ['urgent'] })).toEqual([key]);
  });

  it('by each pair of status and priority with words', async () => {
    const rows: unknown[][] = [];
    let n = 100;
    for (const status of STATUSES)
      PRIORITIES.forEach((priority, rank) => {
        n++;
        rows.push([n, `SHIP-${n}`, `Pair ${status} ${priority}`, status, priority, rank]);
      });
    await db.batch(
      `INSERT INTO tickets (project_id, number, key, title, type, status, priority, priority_rank, created_at,
         updated_at) VALUES (1, ?, ?, ?, 'task', ?, ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
      rows,
    );
    // Enough hits for the words that each pair is asked of the index (see the test above).
    await fillers('Pair', 60);
    n = 100;
    for (const status of STATUSES)
      for (const priority of PRIORITIES) {
        n++;
        const page = await search({ query: 'pair', status: [status], priority: [priority], limit: 100 });
        expect(page.total).toBe(status === 'cancelled' && priority === 'none' ? 61 : 1);
        expect(page.items.map((item) => item.key)).toContain(`SHIP-${n}`);
      }
    expect((await search({ query: 'pair', status: ['in_review', 'cancelled'] })).total).toBe(70);
  });

  it('by assignee: a name, "me" and "none"', async () => {
    expect(await keys({ assignee: 'bo' })).toEqual(['SHIP-2']);
    expect(await keys({ assignee: 'me' })).toEqual(['SHIP-1']);
    expect(await keys({ assignee: 'ME' })).toEqual(['SHIP-1']);
    expect((await keys({ assignee: 'none' })).sort()).toEqual(['SHIP-3', 'WEB-1']);
    expect(await keys({ assignee: 'nobody-here' })).toEqual([]);
    // null, as results show nobody: told the word for it, not only to leave the filter out (any assignee).
    const error = await callError(client, 'search_tickets', { assignee: null }, 'invalid_input');
    expect(error.message).toContain('`assignee` must be a string, got null: pass "none" for none');
  });

  it('by assignee in any case', async () => {
    expect(await keys({ assignee: 'BO' })).toEqual(['SHIP-2']);
    expect(await keys({ query: 'login', assignee: 'Bo' })).toEqual(['SHIP-2']);
    expect(await keys({ query: 'login', assignee: 'Bo', status: ['in_progress'] })).toEqual(['SHIP-2']);
  });

  it.skipIf(onPostgres)('by assignee in any case through the assignee index, on SQLite', async () => {
    // The index is COLLATE NOCASE: a comparison in another collation would quietly read every row instead.
    const statements: string[] = [];
    const prepare = connected.database.sqlite.prepare.bind(connected.database.sqlite);
    connected.database.sqlite.prepare = ((source: string) => {
      statements.push(source);
      return prepare(source);
    }) as typeof connected.database.sqlite.prepare;
    try {
      await keys({ assignee: 'Bo' });
      await keys({ query: 'login', assignee: 'Bo' });
    } finally {
      connected.database.sqlite.prepare = prepare;
    }
    const plans = statements
      .filter((source) => source.includes('assignee ='))
      .map((source) => {
        const params = Array.from(source.matchAll(/\?/g), () => 'x');
        return prepare(`EXPLAIN QUERY PLAN ${source}`)
          .all(...params)
          .map((row) => (row as { detail: string }).detail)
          .join('; ');
      });
    expect(plans.length).toBeGreaterThanOrEqual(2);
    for (const plan of plans)
      expect(plan).toMatch(/USING (COVERING )?INDEX tickets_assignee_idx \(assignee=\?/);
  });

  it('"me" without a configured user is invalid_input', async () => {
    const other = await connectTickets({ user: undefined });
    try {
      await callError(other.client, 'search_tickets', { assignee: 'me' }, 'invalid_input');
    } finally {
      await other.client.close();
    }
  });

  it('by label, case-insensitively', async () => {
    expect((await keys({ label: 'auth' })).sort()).toEqual(['SHIP-1', 'SHIP-2']);
    expect((await keys({ label: ' UI ' })).sort()).toEqual(['SHIP-2', 'WEB-1']);
    expect(await keys({ label: 'au' })).toEqual([]);
  });

  it('by label and assignee the same whether an accent is composed or combining (NFC)', async () => {
    const composed = 'caf\u00e9';
    const combining = 'cafe\u0301';
    const { key } = await seedTicket(client, {
      title: 'Accented',
      labels: [combining, composed],
      assignee: `Jos${combining.slice(3)}`,
    });
    const ticket = await callOk<{ labels: string[]; assignee: string }>(client, 'get_ticket', { key });
    expect(ticket.labels).toEqual([composed]);
    expect(ticket.assignee).toBe('Jos\u00e9');
    expect(await keys({ label: combining })).toEqual([key]);
    expect(await keys({ assignee: 'jos\u00e9' })).toEqual([key]);
  });

  it('by parent; an unknown parent is not_found and a malformed one invalid_input', async () => {
    expect(await keys({ parent: 'SHIP-1' })).toEqual(['SHIP-3']);
    expect(await keys({ parent: 'ship-2' })).toEqual([]);
    // With words, the hits are checked against the parent index, which holds only tickets with a parent.
    expect(await keys({ query: 'login', parent: 'SHIP-1' })).toEqual(['SHIP-3']);
    expect(await keys({ query: 'metrics', parent: 'SHIP-2' })).toEqual([]);
    // Each error names the argument: the key is not the search's own.
    const missing = await callError(client, 'search_tickets', { parent: 'SHIP-99' }, 'not_found');
    expect(missing.message).toMatch(/^`parent`: No ticket SHIP-99: /);
    const malformed = await callError(client, 'search_tickets', { parent: 'not a key' }, 'invalid_input');
    expect(malformed.message).toMatch(/^`parent`: /);
    const none = await callError(client, 'search_tickets', { parent: 'none' }, 'invalid_input');
    expect(none.hint).toBe('Pass a parent key such as SHIP-42; no filter finds the tickets without a parent');
  });

  it('by updated_since and created_since (dates and datetimes)', async () => {
    await setRow('SHIP-1', {
      created_at: '2024-01-10T08:00:00.000Z',
      updated_at: '2024-03-01T12:00:00.000Z',
    });
    await setRow('SHIP-2', {
      created_at: '2024-02-10T08:00:00.000Z',
      updated_at: '2024-02-15T12:00:00.000Z',
    });
    await setRow('SHIP-3', {
      created_at: '2023-12-31T23:00:00.000Z',
      updated_at: '2024-01-01T00:00:00.000Z',
    });
    await setRow('WEB-1', { created_at: '2023-01-01T00:00:00.000Z', updated_at: '2023-01-01T00:00:00.000Z' });
    expect(await keys({ updated_since: '2024-02-15' })).toEqual(['SHIP-1', 'SHIP-2']);
    expect(await keys({ updated_since: '2024-02-15T12:00:01Z' })).toEqual(['SHIP-1']);
    expect(await keys({ updated_since: '2024-03-01T13:00:00+02:00' })).toEqual(['SHIP-1']);
    // RFC 3339's other spellings: lower-case t and z, a space for the T; and an offset without its colon.
    for (const since of ['2024-02-15t12:00:01z', '2024-02-15 12:00:01', '2024-02-15T14:00:01+0200'])
      expect(await keys({ updated_since: since })).toEqual(['SHIP-1']);
    // Years before 100 are years too (JavaScript's Date.UTC would read 0050 as 1950).
    expect((await keys({ created_since: '0050-01-01' })).sort()).toEqual([
      'SHIP-1',
      'SHIP-2',
      'SHIP-3',
      'WEB-1',
    ]);
    // An offset that carries the last or the first day of the years past them: after every ticket, before all.
    expect(await keys({ updated_since: '9999-12-31T23:00:00-05:00' })).toEqual([]);
    expect((await keys({ created_since: '0000-01-01T00:30:00+01:00' })).length).toBe(4);
    expect((await keys({ created_since: '2024-01-01' })).sort()).toEqual(['SHIP-1', 'SHIP-2']);
    expect((await keys({ created_since: '2023-12-31T23:00' })).sort()).toEqual([
      'SHIP-1',
      'SHIP-2',
      'SHIP-3',
    ]);
    for (const bad of [
      'yesterday',
      '2024-02-30',
      '2024-13-01',
      '2024-01-01T25:00Z',
      '2024-01-01T10:00+020',
      '',
    ]) {
      await callError(client, 'search_tickets', { updated_since: bad }, 'invalid_input');
    }
    // A day that does not exist is told so, not that its format is wrong.
    const unreal = await callError(
      client,
      'search_tickets',
      { updated_since: '2024-02-30' },
      'invalid_input',
    );
    expect(unreal.message).toContain('`updated_since` must be a real calendar date (and time)');
    const shapeless = await callError(
      client,
      'search_tickets',
      { created_since: 'yesterday' },
      'invalid_input',
    );
    expect(shapeless.message).toContain('`created_since` must be an ISO date or datetime, e.g. 2025-01-31');
  });
});

describe('sorting', () => {
  beforeEach(async () => {
    await seedTicket(client, { title: 'Export crash', description: 'crash crash crash', priority: 'low' });
    await seedTicket(client, { title: 'Import', description: 'a crash sometimes', priority: 'urgent' });
    await seedTicket(client, { title: 'Sync crash', priority: 'medium' });
    await setRow('SHIP-1', {
      created_at: '2024-01-01T00:00:00.000Z',
      updated_at: '2024-01-05T00:00:00.000Z',
    });
    await setRow('SHIP-2', {
      created_at: '2024-01-02T00:00:00.000Z',
      updated_at: '2024-01-09T00:00:00.000Z',
    });
    await setRow('SHIP-3', {
      created_at: '2024-01-03T00:00:00.000Z',
      updated_at: '2024-01-04T00:00:00.000Z',
    });
  });

  it('defaults to relevance with a query and to updated without', async () => {
    expect((await keys({ query: 'crash' })).at(-1)).toBe('SHIP-2');
    expect(await keys({ query: 'crash' })).toEqual(await keys({ query: 'crash', sort: 'relevance' }));
    expect(await keys()).toEqual(['SHIP-2', 'SHIP-1', 'SHIP-3']);
    expect(await keys({ sort: 'relevance' })).toEqual(['SHIP-2', 'SHIP-1', 'SHIP-3']);
  });

  it('by updated, created and priority', async () => {
    expect(await keys({ query: 'crash', sort: 'updated' })).toEqual(['SHIP-2', 'SHIP-1', 'SHIP-3']);
    expect(await keys({ query: 'crash', sort: 'created' })).toEqual(['SHIP-3', 'SHIP-2', 'SHIP-1']);
    expect(await keys({ sort: 'priority' })).toEqual(['SHIP-2', 'SHIP-3', 'SHIP-1']);
  });
});

describe('page size', () => {
  it('stops a page at PAGE_CHARS of JSON and goes on from there, in every sort', async () => {
    const labels = Array.from({ length: 20 }, (_, i) => `${String.fromCharCode(97 + i)}${'l'.repeat(49)}`);
    for (let i = 1; i <= 40; i++) {
      await seedTicket(client, {
        title: `Bulky ${i} ${'t'.repeat(180)}`,
        description: 'd'.repeat(600),
        labels,
      });
    }
    for (const args of [{ query: 'bulky' }, { sort: 'updated' }, { sort: 'created' }, { sort: 'priority' }]) {
      const seen: string[] = [];
      let page = await search({ ...args, limit: 100, fields: ['description'] });
      expect(page.total).toBe(40);
      expect(page.items.length, JSON.stringify(args)).toBeLessThan(40);
      for (;;) {
        expect(JSON.stringify(page.items).length).toBeLessThanOrEqual(PAGE_CHARS);
        seen.push(...page.items.map((item) => item.key));
        if (!page.next_cursor) break;
        page = await search({ ...args, limit: 100, fields: ['description'], cursor: page.next_cursor });
      }
      expect(new Set(seen).size, JSON.stringify(args)).toBe(40);
      expect(seen).toHaveLength(40);
    }
    // Ordinary pages are not cut.
    expect((await search({ query: 'bulky', limit: 10 })).items).toHaveLength(10);
  });
});

describe('pages', () => {
  beforeEach(async () => {
    for (let i = 1; i <= 23; i++) {
      await seedTicket(client, {
        title: `Flaky test number ${i}`,
        priority: i % 2 ? 'high' : 'low',
        ...(i % 4 ? { assignee: 'ana' } : {}),
      });
    }
    // Same updated_at for several tickets: the order must still be total (id breaks ties).
    await db.run("UPDATE tickets SET updated_at = '2024-05-01T00:00:00.000Z' WHERE number % 3 = 0");
  });

  for (const args of [
    {},
    { sort: 'created' },
    { sort: 'priority' },
    { query: 'flaky test' },
    { query: 'flaky', sort: 'priority' },
    { query: 'flaky', sort: 'updated' },
    { query: 'flaky', priority: ['high'] },
    { priority: ['high'] },
  ]) {
    it(`walks every page exactly once: ${JSON.stringify(args)}`, async () => {
      const seen: string[] = [];
      const totals = new Set<number>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await search({ ...args, limit: 5, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((item) => item.key));
        totals.add(page.total);
        cursor = page.next_cursor ?? undefined;
        pages++;
      } while (cursor);
      const expected = 'priority' in args ? 12 : 23;
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toHaveLength(expected);
      expect([...totals]).toEqual([expected]);
      expect(pages).toBe(Math.ceil(expected / 5));
    });
  }

  it('goes on after the last ticket shown, whatever changed before it (a triage moving tickets out)', async () => {
    // Newest first: SHIP-23, SHIP-22, … (SHIP-3, 6, 9… share one old updated_at and come last).
    const first = await search({ status: ['backlog'], limit: 5 });
    const shown = first.items.map((item) => item.key);
    // Each ticket of the first page is triaged out of the backlog before the next page is asked for.
    for (const key of shown) await callOk(client, 'transition_ticket', { key, status: 'todo' });
    const second = await search({ status: ['backlog'], limit: 5, cursor: first.next_cursor });
    expect(second.total).toBe(18);
    // Paging by offset would have skipped the five tickets that moved up into the places of those shown.
    expect(second.items.map((item) => item.key)).toEqual(
      (await search({ status: ['backlog'], limit: 5 })).items.map((item) => item.key),
    );
    // A ticket added before the key is not shown again later, and the end is the end.
    let cursor = second.next_cursor;
    const rest: string[] = [];
    await seedTicket(client, { title: 'Late arrival' });
    while (cursor) {
      const page = await search({ status: ['backlog'], limit: 5, cursor });
      rest.push(...page.items.map((item) => item.key));
      cursor = page.next_cursor;
    }
    expect(rest).toHaveLength(13);
    expect(rest).not.toContain('SHIP-24');
  });

  it('goes on after the last ticket shown by relevance too, while a triage moves the shown ones out', async () => {
    const ask = { query: 'flaky test', status: ['backlog'], limit: 5 };
    const first = await search(ask);
    for (const { key } of first.items) await callOk(client, 'transition_ticket', { key, status: 'todo' });
    const second = await search({ ...ask, cursor: first.next_cursor });
    expect(second.total).toBe(18);
    // A status change leaves every score where it was: no note that they moved.
    expect(second.note).toBeUndefined();
    // By position, the five that moved up into the places of those shown would have been skipped.
    expect(second.items.map((item) => item.key)).toEqual((await search(ask)).items.map((item) => item.key));
    const seen = second.items.map((item) => item.key);
    let cursor = second.next_cursor;
    while (cursor) {
      const page = await search({ ...ask, cursor });
      seen.push(...page.items.map((item) => item.key));
      cursor = page.next_cursor;
    }
    expect(new Set(seen).size).toBe(18);
    expect(seen).toHaveLength(18);
  });

  it('places the next relevance page by its cursor when the last ticket shown is gone', async () => {
    // Scores fall with the description's length: the last ticket, the most urgent, scores worst.
    for (let n = 1; n <= 30; n++)
      await seedTicket(client, {
        title: 'Crash report',
        description: 'word '.repeat(n),
        priority: n === 30 ? 'urgent' : 'low',
      });
    const all = (await search({ query: 'crash', limit: 30 })).items.map((item) => item.key);
    const first = await search({ query: 'crash', limit: 10 });
    // No tool deletes a ticket; by hand, its row leaves the index as well.
    await db.run('DELETE FROM tickets WHERE key = ?', first.items[9]?.key);
    const second = await search({ query: 'crash', limit: 10, cursor: first.next_cursor });
    expect(second.items.map((item) => item.key)).toEqual(all.slice(10, 20));
  });

  it('places the next relevance page when the last ticket shown has left the status filter since', async () => {
    // The last one shown no longer passes the filter; its score is read from the index all the same.
    for (let i = 1; i <= 60; i++) {
      await seedTicket(client, { title: `Flaky login suite ${i}`, priority: 'high' });
      await seedTicket(client, { title: `Other work ${i}`, priority: 'high' });
    }
    const ask = { query: 'login', status: ['backlog'], priority: ['high'], limit: 5 };
    const first = await search(ask);
    expect(first.total).toBe(60);
    const last = first.items[4]?.key;
    await callOk(client, 'transition_ticket', { key: last, status: 'todo' });
    // More tickets with the word, indexed before the next page, weigh it less: every score moves, and the
    // score the cursor holds is below all of them now. The last ticket shown places the page by its score now.
    for (let i = 1; i <= 30; i++)
      await seedTicket(client, { title: `Login checklist ${i}`, priority: 'low' });
    await search({ query: 'checklist' });
    const second = await search({ ...ask, cursor: first.next_cursor });
    expect(second.total).toBe(59);
    const now = (await search({ ...ask, limit: 100 })).items.map((item) => item.key);
    expect(now.slice(0, 4)).toEqual(first.items.slice(0, 4).map((item) => item.key));
    expect(second.items.map((item) => item.key)).toEqual(now.slice(4, 9));
  });

  it('pages by relevance after the last ticket shown: a write between pages, which moves every bm25 score, loses nothing', async () => {
    // 23 "flaky test" tickets tie on their words; a ticket without them changes the index's statistics.
    const first = await search({ query: 'flaky test', limit: 10 });
    await seedTicket(client, { title: 'Unrelated change to the index' });
    const seen = first.items.map((item) => item.key);
    let cursor = first.next_cursor;
    while (cursor) {
      const page = await search({ query: 'flaky test', limit: 10, cursor });
      seen.push(...page.items.map((item) => item.key));
      cursor = page.next_cursor;
    }
    expect(new Set(seen).size).toBe(23);
    expect(seen).toHaveLength(23);
  });

  it.runIf(onPostgres)(
    'keeps relevance pages in place when other tickets are added or edited, on PostgreSQL',
    async () => {
      // ts_rank_cd scores a ticket by its own text: no other ticket moves it, so no page notes a move.
      await seedTicket(client, { title: 'alpha alpha beta' });
      await seedTicket(client, { title: 'alpha beta beta' });
      const ask = { query: 'alpha beta', limit: 1 };
      const first = await search(ask);
      const order = (await search({ ...ask, limit: 2 })).items.map((item) => item.key);
      for (let i = 1; i <= 12; i++)
        await callOk(client, 'update_ticket', { key: `SHIP-${i}`, title: `beta filler ${i}` });
      await seedTicket(client, { title: 'alpha gamma' });
      expect((await search({ ...ask, limit: 2 })).items.map((item) => item.key)).toEqual(order);
      const second = await search({ ...ask, cursor: first.next_cursor });
      expect(second.items.map((item) => item.key)).toEqual(order.slice(1));
      expect(second.note).toBeUndefined();
    },
  );

  it.skipIf(onPostgres)(
    'says so on a relevance page when tickets were added or their text changed since the page before',
    async () => {
      await seedTicket(client, { title: 'alpha alpha beta' });
      await seedTicket(client, { title: 'alpha beta beta' });
      const ask = { query: 'alpha beta', limit: 1 };
      const first = await search(ask);
      // The two tie: the newer first.
      expect(first.items.map((item) => item.key)).toEqual(['SHIP-25']);
      // Tickets the search does not find take a word of it: "beta" weighs less, and the two swap places.
      for (let i = 1; i <= 12; i++)
        await callOk(client, 'update_ticket', { key: `SHIP-${i}`, title: `beta filler ${i}` });
      expect((await search(ask)).items.map((item) => item.key)).toEqual(['SHIP-24']);
      const second = await search({ ...ask, cursor: first.next_cursor });
      // SHIP-24 now sorts before the place the cursor holds: this page cannot show it, and says what happened.
      expect(second.items).toEqual([]);
      expect(second.note).toContain('this page may skip or repeat a ticket. Search again without cursor');
      // Pages with no such change between them say nothing.
      const again = await search(ask);
      expect(again.note).toBeUndefined();
      expect((await search({ ...ask, cursor: again.next_cursor })).note).toBeUndefined();
      // Nor do a priority, an assignee, labels or a comment.
      await callOk(client, 'update_ticket', {
        key: 'SHIP-24',
        priority: 'high',
        assignee: 'bo',
        labels: ['ui'],
      });
      await callOk(client, 'add_ticket_comment', { key: 'SHIP-24', body: 'alpha beta' });
      expect((await search({ ...ask, cursor: again.next_cursor })).note).toBeUndefined();
      // A word swapped for another leaves the index's counts of tickets and words as they were, and moves the
      // words' weights all the same: noted too.
      await callOk(client, 'update_ticket', { key: 'SHIP-13', title: 'Flaky alpha number 13' });
      expect((await search({ ...ask, cursor: again.next_cursor })).note).toContain('may skip or repeat');
      // A new ticket moves them once it enters the index, which another search's first page does.
      const third = await search(ask);
      await seedTicket(client, { title: 'alpha gamma' });
      expect((await search({ ...ask, cursor: third.next_cursor })).note).toBeUndefined();
      await search({ query: 'gamma' });
      expect((await search({ ...ask, cursor: third.next_cursor })).note).toContain('may skip or repeat');
    },
  );

  it('uses 20 per page by default', async () => {
    const page = await search();
    expect(page.items).toHaveLength(20);
    expect(page.total).toBe(23);
    const rest = await search({ cursor: page.next_cursor });
    expect(rest.items).toHaveLength(3);
    expect(rest.total).toBe(23);
    expect(rest.next_cursor).toBeNull();
  });

  it('refuses a cursor from another query, and a forged one', async () => {
    const page = await search({ query: 'flaky', limit: 5 });
    const cursor = page.next_cursor;
    expect(cursor).toBeTruthy();
    await callError(client, 'search_tickets', { query: 'test', limit: 5, cursor }, 'invalid_input');
    // The same words in other case are the same query: the search does not tell them apart.
    expect((await search({ query: 'FLAKY', limit: 5, cursor })).items).toHaveLength(5);
    // Nobody is a filter, unlike no filter: their cursors differ.
    const nobody = await search({ assignee: 'none', limit: 1 });
    await callError(client, 'search_tickets', { limit: 1, cursor: nobody.next_cursor }, 'invalid_input');
    // So is an assignee in other (ASCII) case, as the filter compares names.
    const mine = await search({ assignee: 'ana', limit: 5 });
    expect(mine.next_cursor).toBeTruthy();
    const upper = await search({ assignee: 'ANA', limit: 5, cursor: mine.next_cursor });
    expect(upper.items.map((item) => item.key)).toEqual(
      (await search({ assignee: 'me', limit: 5, cursor: mine.next_cursor })).items.map((item) => item.key),
    );
    await callError(
      client,
      'search_tickets',
      { query: 'flaky', priority: ['high'], cursor },
      'invalid_input',
    );
    await callError(client, 'search_tickets', { query: 'flaky', sort: 'created', cursor }, 'invalid_input');
    await callError(client, 'search_tickets', { cursor: 'not-a-cursor' }, 'invalid_input');
    // A cursor of this query whose sort key does not fit the sort (a score and an id) is refused too.
    const state = JSON.parse(Buffer.from(cursor ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...state, k: ['2026-01-01', 1] })).toString('base64url');
    const error = await callError(
      client,
      'search_tickets',
      { query: 'flaky', cursor: forged },
      'invalid_input',
    );
    expect(error.message).toContain('not a cursor this server issued');
    // So is a listing's cursor whose key does not fit its sort (updated_at and id): too short, or mistyped.
    const listing = await search({ sort: 'updated', limit: 5 });
    const listed = JSON.parse(Buffer.from(listing.next_cursor ?? '', 'base64url').toString());
    for (const k of [[1], [7, 1], ['2026-01-01', '1']]) {
      const bad = Buffer.from(JSON.stringify({ ...listed, k })).toString('base64url');
      const refused = await callError(
        client,
        'search_tickets',
        { sort: 'updated', limit: 5, cursor: bad },
        'invalid_input',
      );
      expect(refused.message).toContain('not a cursor this server issued');
    }
    // The same query with another limit or other fields keeps its cursor.
    expect((await search({ query: 'flaky', limit: 10, cursor, fields: ['reporter'] })).items).toHaveLength(
      10,
    );
  });
});

describe('many hits', () => {
  it('orders and counts a common word the same on every query plan', async () => {
    const priorities = ['urgent', 'high', 'medium', 'low', 'none'];
    const rows: unknown[][] = [];
    for (let n = 1; n <= 2_500; n++) {
      const at = (m: number) => new Date(Date.UTC(2024, 0, 1) + ((n * m) % 9_973) * 60_000).toISOString();
      const p = n % 5;
      const status = n % 3 ? 'todo' : 'done';
      const type = n % 2 ? 'bug' : 'task';
      const assignee = n % 7 ? null : 'bo';
      rows.push([
        n,
        `SHIP-${n}`,
        `Common flaky thing ${n}`,
        type,
        status,
        priorities[p],
        p,
        assignee,
        at(7),
        at(13),
      ]);
    }
    await db.batch(
      `INSERT INTO tickets (project_id, number, key, title, description, type, status, priority, priority_rank,
         assignee, labels, created_at, updated_at) VALUES (1, ?, ?, ?, '', ?, ?, ?, ?, ?, '[]', ?, ?)`,
      rows,
    );
    const expected = async (where: string, order: string) =>
      (
        await db.all<{ key: string }>(`SELECT key FROM tickets WHERE ${where} ORDER BY ${order} LIMIT 20`)
      ).map((row) => row.key);
    const all = "title LIKE '%ommon%'";
    const high = `${all} AND priority = 'high' AND status = 'todo'`;
    const orders = {
      updated: 'updated_at DESC, id DESC',
      created: 'created_at DESC, id DESC',
      priority: 'priority_rank, updated_at DESC, id DESC',
    };
    for (const [sort, order] of Object.entries(orders)) {
      const page = await search({ query: 'common', sort });
      expect(page.total).toBe(2_500);
      expect(page.items.map((item) => item.key)).toEqual(await expected(all, order));
      const filtered = await search({ query: 'common', sort, priority: ['high'], status: ['todo'] });
      expect(filtered.total).toBe(333);
      expect(filtered.items.map((item) => item.key)).toEqual(await expected(high, order));
    }
    const relevance = await search({
      query: 'common flaky',
      priority: ['high'],
      status: ['todo'],
      limit: 100,
    });
    expect(relevance.total).toBe(333);
    expect(relevance.items).toHaveLength(100);
    // Listings without words take other plans (sort index walk, index intersection, narrow index first).
    const listings: [Record<string, unknown>, string][] = [
      [{}, '1 = 1'],
      [{ priority: ['high'], status: ['todo'] }, "priority = 'high' AND status = 'todo'"],
      [
        { priority: ['high'], status: ['todo'], type: 'bug' },
        "priority = 'high' AND status = 'todo' AND type = 'bug'",
      ],
      [{ assignee: 'bo', status: ['todo'] }, "assignee = 'bo' AND status = 'todo'"],
      [{ assignee: 'none', priority: ['urgent'] }, "assignee IS NULL AND priority = 'urgent'"],
    ];
    for (const [filters, where] of listings) {
      const count = await db.value(`SELECT CAST(count(*) AS INTEGER) FROM tickets WHERE ${where}`);
      for (const [sort, order] of Object.entries(orders)) {
        const page = await search({ ...filters, sort });
        expect(page.total).toBe(count);
        expect(page.items.map((item) => item.key)).toEqual(await expected(where, order));
      }
    }
  });
  /** 3,000 tickets of SHIP and WEB with common words, for filters of every kind with text. */
  async function seedHits() {
    await seedProject(client, 'WEB', 'Web');
    const priorities = ['urgent', 'high', 'medium', 'low', 'none'];
    const words = ['flaky', 'slow', 'broken', 'login', 'export'];
    const rows: unknown[][] = [];
    for (let n = 1; n <= 3_000; n++) {
      const at = new Date(Date.UTC(2024, 0, 1) + n * 3_600_000).toISOString();
      const p = n % 5;
      const project = n % 3 ? 1 : 2;
      rows.push([
        project,
        n,
        `${project === 1 ? 'SHIP' : 'WEB'}-${n}`,
        `Common ${words[n % 5]} ${words[(n >> 2) % 5]} thing`,
        `${'common '.repeat(n % 4)}${words[(n >> 3) % 5]} notes ${'filler '.repeat(n % 7)}`,
        n % 2 ? 'bug' : 'task',
        n % 10 ? 'todo' : 'done',
        priorities[p],
        p,
        n % 7 ? null : 'bo',
        n % 4 ? '[]' : '["ui"]',
        n > 1 && n % 11 === 0 ? 1 : null,
        at,
        at,
      ]);
    }
    await db.batch(
      `INSERT INTO tickets (project_id, number, key, title, description, type, status, priority, priority_rank,
         assignee, labels, parent_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      rows,
    );
  }

  /** Filters of every kind, each with the SQL condition that selects the same tickets. */
  const HIT_CASES: [Record<string, unknown>, string][] = [
    [{ status: ['todo'] }, "status = 'todo'"],
    [{ status: ['todo'], priority: ['high'] }, "status = 'todo' AND priority = 'high'"],
    [{ project: 'WEB', status: ['done', 'todo'] }, "project_id = 2 AND status IN ('done', 'todo')"],
    [{ assignee: 'bo', type: 'bug' }, "assignee = 'bo' AND type = 'bug'"],
    [{ assignee: 'none', priority: ['low', 'none'] }, "assignee IS NULL AND priority IN ('low', 'none')"],
    [{ project: 'SHIP' }, 'project_id = 1'],
    [{ type: 'task' }, "type = 'task'"],
    [{ updated_since: '2024-03-01', project: 'WEB' }, "updated_at >= '2024-03-01' AND project_id = 2"],
    [{ parent: 'SHIP-1', status: ['todo'] }, "parent_id = 1 AND status = 'todo'"],
    [{ label: 'UI', status: ['todo'] }, "labels = '[\"ui\"]' AND status = 'todo'"],
    [{ label: 'ui' }, 'labels = \'["ui"]\''],
    // Status and priority both, with other filters.
    [
      { project: 'WEB', status: ['done', 'todo'], priority: ['urgent', 'high'] },
      "project_id = 2 AND status IN ('done', 'todo') AND priority IN ('urgent', 'high')",
    ],
    [
      { assignee: 'bo', status: ['todo'], priority: ['low', 'none', 'medium'], type: 'bug' },
      "assignee = 'bo' AND status = 'todo' AND priority IN ('low', 'none', 'medium') AND type = 'bug'",
    ],
    [
      { label: 'ui', updated_since: '2024-02-01', status: ['todo'], priority: ['medium', 'high'] },
      "labels = '[\"ui\"]' AND updated_at >= '2024-02-01' AND status = 'todo' AND priority IN ('medium', 'high')",
    ],
  ];

  // On SQLite, bm25 weighs a ticket's length too, so the next test pins its exact order instead.
  it.runIf(onPostgres)(
    'counts text hits as the filters select them and ranks title matches first, on PostgreSQL',
    async () => {
      await seedHits();
      // The words are whole, unstemmed and in no other word: a LIKE finds the tickets that hold them.
      const holding = (word: string) => `(title LIKE '%${word}%' OR description LIKE '%${word}%')`;
      for (const [filters, where] of HIT_CASES) {
        for (const [query, text, title] of [
          ['common', holding('ommon'), "title LIKE '%ommon%'"],
          [
            'flaky slow',
            `${holding('flaky')} AND ${holding('slow')}`,
            "title LIKE '%flaky%' AND title LIKE '%slow%'",
          ],
        ] as const) {
          const hits = new Set(
            (await db.all<{ key: string }>(`SELECT key FROM tickets WHERE ${where} AND ${text}`)).map(
              (row) => row.key,
            ),
          );
          const inTitle = new Set(
            (await db.all<{ key: string }>(`SELECT key FROM tickets WHERE ${where} AND ${title}`)).map(
              (row) => row.key,
            ),
          );
          if (query === 'common') expect(hits.size).toBeGreaterThan(20);
          const seen: string[] = [];
          let page = await search({ query, ...filters, limit: 100 });
          expect(page.total).toBe(hits.size);
          for (;;) {
            seen.push(...page.items.map((item) => item.key));
            if (!page.next_cursor) break;
            page = await search({ query, ...filters, limit: 100, cursor: page.next_cursor });
          }
          expect(new Set(seen)).toEqual(hits);
          expect(seen).toHaveLength(hits.size);
          // Every ticket with all the words in its title comes before every one without.
          const firstOther = seen.findIndex((key) => !inTitle.has(key));
          if (firstOther >= 0) expect(seen.slice(firstOther).some((key) => inTitle.has(key))).toBe(false);
        }
      }
    },
  );

  it.skipIf(onPostgres)(
    'ranks and counts text hits the same on every query plan, as bm25 ranks them on SQLite',
    async () => {
      // Filters with an index to seek by (parent, assignee, project with status, priority, status) check each
      // text hit there; the others (project alone, type, label, dates) check it on its row.
      // The oracle is the plain join of every FTS hit to its row.
      await seedHits();
      const oracle = (match: string, where: string, offset: number) => {
        // The ticket of each hit by its id, the hit's row id.
        const from = `tickets_fts JOIN tickets ON tickets.id = tickets_fts.rowid
        WHERE tickets_fts MATCH ? AND ${where}`;
        return {
          total: connected.database.sqlite.prepare(`SELECT count(*) FROM ${from}`).pluck().get(match),
          keys: connected.database.sqlite
            .prepare(
              `SELECT tickets.key FROM ${from} ORDER BY bm25(tickets_fts, 1000.0, 1.0), tickets.id DESC LIMIT 20 OFFSET ${offset}`,
            )
            .pluck()
            .all(match),
        };
      };
      for (const [filters, where] of HIT_CASES) {
        for (const [query, match] of [
          ['common', '"common"'],
          ['flaky slow', '"flaky" "slow"'],
        ]) {
          const first = await search({ query, ...filters });
          const expected = oracle(match as string, where, 0);
          // Every ticket's title has "common": each case has hits to compare.
          if (query === 'common') expect(expected.total).toBeGreaterThan(20);
          expect({ total: first.total, keys: first.items.map((item) => item.key) }).toEqual(expected);
          if (first.total <= 20) expect(first.next_cursor).toBeNull();
          else {
            const second = await search({ query, ...filters, cursor: first.next_cursor });
            expect(second.items.map((item) => item.key)).toEqual(oracle(match as string, where, 20).keys);
          }
        }
      }
    },
  );
});

describe('what a result holds', () => {
  it('summaries carry no description unless fields asks; a long one is cut with a flag', async () => {
    await seedTicket(client, { title: 'Parent epic', description: 'short text' });
    await seedTicket(client, {
      title: 'Child task',
      description: 'é'.repeat(800),
      parent: 'SHIP-1',
      estimate: 3,
      due_date: '2030-01-31',
      assignee: 'me',
    });
    const plain = await search({ query: 'child' });
    expect(Object.keys(plain.items[0] ?? {}).sort()).toEqual(
      ['assignee', 'key', 'labels', 'priority', 'status', 'title', 'type', 'updated_at'].sort(),
    );
    const full = await search({
      query: 'child',
      fields: ['description', 'reporter', 'estimate', 'due_date', 'parent', 'created_at'],
    });
    const item = full.items[0];
    expect(item).toMatchObject({
      key: 'SHIP-2',
      description_truncated: true,
      reporter: 'ana',
      estimate: 3,
      due_date: '2030-01-31',
      parent: 'SHIP-1',
    });
    expect(item?.description).toBe('é'.repeat(500));
    // The cut keeps a character as people see it whole: a flag, an accented letter typed apart.
    for (const [tail, kept] of [
      ['🇫🇷 tail', ''],
      ['q\u0307 tail', ''],
      ['👨\u200d👩\u200d👧 tail', ''],
      ['ab', 'a'],
    ]) {
      await callOk(client, 'update_ticket', { key: 'SHIP-2', description: `${'c'.repeat(499)}${tail}` });
      const cut = await search({ query: 'child', fields: ['description'] });
      expect(cut.items[0]?.description).toBe(`${'c'.repeat(499)}${kept}`);
    }
    expect(typeof item?.created_at).toBe('string');
    const short = await search({ query: 'epic', fields: ['description'] });
    expect(short.items[0]).toMatchObject({ description: 'short text', description_truncated: false });
  });

  it('rejects bad input cleanly and keeps serving', async () => {
    await seedTicket(client, { title: 'Crash on start' });
    const summary = await checkBadInputs(client, 'search_tickets', searchTicketsTool.input, {
      query: 'crash',
    });
    expect(summary.cases).toBeGreaterThan(50);
    expect((await search({ query: 'crash' })).total).toBe(1);
  });

  it('keeps both search listings small and lint-clean', async () => {
    const findings = (await lintServer(definition)).filter(
      (f) => f.where.includes('search_tickets') || f.where.includes('find_similar_tickets'),
    );
    expect(findings).toEqual([]);
    // tools/list share (chars/4). search_tickets: ~105 of it is core's pagination fields, ~95 the summary schema.
    const tokens = (tool: Parameters<typeof toolListing>[0]) =>
      charsToTokens(JSON.stringify(toolListing(tool)).length);
    expect(tokens(searchTicketsTool)).toBeLessThanOrEqual(740);
    expect(tokens(findSimilar)).toBeLessThanOrEqual(320);
  });
});
