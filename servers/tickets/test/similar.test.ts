import { callError, callOk, checkBadInputs } from '@shipyard/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import findSimilarTool from '../src/tools/find_similar_tickets.js';
import { seedProject, seedTicket, type TicketsClient } from './helpers.js';
import { connectWithSql, type TestSql } from './sql.js';

interface Similar {
  items: { key: string; title: string; status: string; score: number }[];
}

let client: TicketsClient;
let db: TestSql;
let closeSql: () => Promise<void>;

const similar = (args: Record<string, unknown>) => callOk<Similar>(client, 'find_similar_tickets', args);
const scores = async (args: Record<string, unknown>) =>
  Object.fromEntries((await similar(args)).items.map((item) => [item.key, item.score]));

beforeEach(async () => {
  ({ client, sql: db, closeSql } = await connectWithSql());
  await seedProject(client);
  await seedProject(client, 'WEB', 'Website');
  await seedTicket(client, { title: 'Crash when saving a file' });
  await seedTicket(client, { title: 'App crashes when saving large files' });
  await seedTicket(client, { title: 'Dark mode for the settings page' });
  await seedTicket(client, { title: 'Saving preferences is slow' });
  await seedTicket(client, { title: 'Export to CSV', description: 'The crash report export should be CSV' });
  await seedTicket(client, { project: 'WEB', title: 'Crash when saving a file' });
});
afterEach(async () => {
  await client?.close();
  await closeSql?.();
});

it('scores an exact duplicate 1 and puts it first', async () => {
  const { items } = await similar({ title: 'Crash when saving a file' });
  expect(items.slice(0, 2).map((item) => [item.key, item.score])).toEqual(
    expect.arrayContaining([
      ['SHIP-1', 1],
      ['WEB-1', 1],
    ]),
  );
  expect(items[2]).toMatchObject({
    key: 'SHIP-2',
    title: 'App crashes when saving large files',
    status: 'backlog',
  });
  expect(items[2]?.score).toBeLessThan(1);
  // Case, punctuation and word forms do not matter.
  expect((await scores({ title: 'CRASH when saving a file!!' }))['SHIP-1']).toBe(1);
  expect((await scores({ title: 'crashing while saving files' }))['SHIP-1']).toBe(1);
});

it('ranks the nearest duplicate first, best score first', async () => {
  const { items } = await similar({ title: 'The app crashes when I save big files' });
  expect(items[0]?.key).toBe('SHIP-2');
  const values = items.map((item) => item.score);
  expect(values).toEqual([...values].sort((a, b) => b - a));
  expect(values.every((score) => score >= 0.3 && score <= 1)).toBe(true);
  expect(values.every((score) => Math.round(score * 100) === score * 100)).toBe(true);
});

it('finds a duplicate whose description is long among many tickets sharing its title words', async () => {
  // Candidates are the best bm25 title hits; bm25 normalises by the whole ticket's length, so a stack trace
  // in the description pushed a same-titled ticket out of them.
  const trace = Array.from({ length: 60 }, (_, i) => `    at handler${i} (src/cart/checkout.ts:${i + 10}:5)`);
  const target = await seedTicket(client, {
    project: 'WEB',
    title: 'Checkout flow returns 500 when the cart is empty',
    description: `TypeError: cannot read total\n${trace.join('\n')}`,
  });
  const parts = ['Search', 'Header', 'Footer', 'Profile', 'Orders', 'Wishlist', 'Banner', 'Login'];
  for (const part of parts) {
    for (const problem of ['is slow', 'times out', 'flickers', 'shows nothing', 'logs an error']) {
      await seedTicket(client, { project: 'WEB', title: `${part} ${problem} when the cart is empty` });
    }
  }
  // Enough other tickets that the shared words keep some weight, a score of them naming the checkout.
  for (let i = 0; i < 100; i++) {
    const part = i % 5 === 0 ? 'checkout' : (parts[i % parts.length] ?? 'search').toLowerCase();
    await seedTicket(client, { project: 'WEB', title: `Refactor the ${part} module, step ${i}` });
  }
  const found = await scores({ title: 'Checkout crashes with an empty cart', limit: 20 });
  expect(found[target.key]).toBeGreaterThanOrEqual(0.3);
  expect(Object.keys(found)[0]).toBe(target.key);
});

/**
 * WEB's "Login crash" with a long stack trace, then (after `between`, if given) 40 WEB tickets whose titles
 * hold the same words.
 */
async function loginCrashAmongLookAlikes(between?: () => Promise<void>) {
  const trace = Array.from({ length: 300 }, (_, i) => `    at frame${i} (src/auth/login.ts:${i + 1}:3)`);
  const original = await seedTicket(client, {
    project: 'WEB',
    title: 'Login crash',
    description: trace.join('\n'),
  });
  await between?.();
  for (let i = 0; i < 40; i++)
    await seedTicket(client, { project: 'WEB', title: `Login crash on device model${i}` });
  return original;
}

it('finds an exact duplicate with a long description among more look-alikes than it scores', async () => {
  // bm25 gives each title word nearly its most whatever the description's length, but not quite: among many
  // tickets holding all the words, the short ones came first, and only the first 30 were scored.
  const original = await loginCrashAmongLookAlikes();
  const { items } = await similar({ title: 'Login crash', limit: 3 });
  expect(items[0]).toMatchObject({ key: original.key, score: 1 });
  expect(items[1]?.score).toBeLessThan(1);
});

it('finds that duplicate too when the filters pass fewer look-alikes than the best hits hold', async () => {
  // The best 1,000 hits are read before the project and status filters. Here they are WEB's 40 look-alikes
  // (the newest, first of equal scores) and SHIP's, while the original, scored last, is not among them.
  const original = await loginCrashAmongLookAlikes(async () => {
    const [ship] = await db.all<{ id: number; n: number }>(
      "SELECT id, last_number AS n FROM projects WHERE key = 'SHIP'",
    );
    const rows = Array.from({ length: 1_100 }, (_, i) => {
      const number = (ship?.n ?? 0) + i + 1;
      return [ship?.id, number, `SHIP-${number}`, `Login crash on device model${i + 1}`];
    });
    await db.batch(
      `INSERT INTO tickets (project_id, number, key, title, type) VALUES (?, ?, ?, ?, 'task')`,
      rows,
    );
  });
  const inProject = await similar({ title: 'Login crash', project: 'WEB', limit: 3 });
  expect(inProject.items[0]).toMatchObject({ key: original.key, score: 1 });
  // Closed look-alikes take the open ones' places among the best hits alike.
  await db.run("UPDATE tickets SET status = 'done' WHERE key LIKE 'SHIP-%'");
  const open = await similar({ title: 'Login crash', limit: 3 });
  expect(open.items[0]).toMatchObject({ key: original.key, score: 1 });
});

it('puts the same title first among tickets that score the same', async () => {
  const reworded = await seedTicket(client, { project: 'WEB', title: 'Safari checkout: timeouts' });
  const exact = await seedTicket(client, { project: 'WEB', title: 'Checkout timeout on Safari' });
  const { items } = await similar({ title: 'checkout TIMEOUT on safari', project: 'WEB' });
  expect(items.map((item) => [item.key, item.score])).toEqual([
    [exact.key, 1],
    [reworded.key, 1],
  ]);
  // Either way round: the order is the titles', not the tickets' age.
  const first = await similar({ title: 'Safari checkout: timeouts', project: 'WEB' });
  expect(first.items.map((item) => item.key)).toEqual([reworded.key, exact.key]);
});

it('leaves unrelated tickets out, even when bm25 finds them', async () => {
  expect((await similar({ title: 'Upgrade the database driver' })).items).toEqual([]);
  // "crash" matches the CSV ticket's description, but its title shares no word.
  const keys = (await similar({ title: 'Crash report' })).items.map((item) => item.key);
  expect(keys).not.toContain('SHIP-5');
  expect(keys).not.toContain('SHIP-3');
  expect((await similar({ title: 'Dark mode' })).items.map((item) => item.key)).toEqual(['SHIP-3']);
});

it('filters by project, and an unknown project is not_found', async () => {
  const keys = (await similar({ title: 'Crash when saving a file', project: 'WEB' })).items.map(
    (item) => item.key,
  );
  expect(keys).toEqual(['WEB-1']);
  const error = await callError(client, 'find_similar_tickets', { title: 'x', project: 'NOPE' }, 'not_found');
  expect(error.hint).toContain('list_projects');
});

it('leaves closed tickets out unless include_closed', async () => {
  await db.run("UPDATE tickets SET status = 'done' WHERE key = 'SHIP-1'");
  await db.run("UPDATE tickets SET status = 'cancelled' WHERE key = 'WEB-1'");
  const open = await scores({ title: 'Crash when saving a file' });
  expect(open['SHIP-1']).toBeUndefined();
  expect(open['WEB-1']).toBeUndefined();
  expect(open['SHIP-2']).toBeGreaterThan(0);
  const all = await similar({ title: 'Crash when saving a file', include_closed: true });
  expect(
    all.items
      .slice(0, 2)
      .map((item) => [item.key, item.status])
      .sort(),
  ).toEqual([
    ['SHIP-1', 'done'],
    ['WEB-1', 'cancelled'],
  ]);
});

it('returns 5 by default and at most limit', async () => {
  for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']) {
    await seedTicket(client, { title: `Flaky test in module ${name}` });
  }
  expect((await similar({ title: 'Flaky test in module' })).items).toHaveLength(5);
  expect((await similar({ title: 'Flaky test in module', limit: 2 })).items).toHaveLength(2);
  expect((await similar({ title: 'Flaky test in module', limit: 20 })).items).toHaveLength(7);
  await callError(client, 'find_similar_tickets', { title: 'Flaky', limit: 21 }, 'invalid_input');
});

it('lets a description lift a differently worded title', async () => {
  await seedTicket(client, {
    title: 'Markdown editor hangs',
    description: 'Typing fast in the markdown editor freezes the browser tab',
  });
  const title = 'Editor freezes';
  // One title word of three in common: below the threshold on the title alone.
  expect((await scores({ title }))['SHIP-6']).toBeUndefined();
  const description = 'When typing, the markdown editor freezes the whole browser tab';
  expect((await scores({ title, description }))['SHIP-6']).toBeGreaterThanOrEqual(0.3);
  // A description never lowers an exact title match.
  expect(
    (await scores({ title: 'Markdown editor hangs', description: 'unrelated words entirely' }))['SHIP-6'],
  ).toBe(1);
});

it('finds a ticket with the same description under a title that shares no word', async () => {
  const dark = 'Users want a dark theme for the editor at night, with softer contrast on every page.';
  await seedTicket(client, { title: 'Add dark theme', description: dark });
  await seedTicket(client, {
    title: 'Login page crashes on Safari',
    description:
      'When I open the login page in Safari 17 on a Mac the browser tab crashes and loses the draft.',
  });
  expect(await scores({ title: 'Night colours', description: dark })).toEqual({ 'SHIP-6': 0.9 });
  // Reworded with the same words, then with 8 of its 11.
  const reworded =
    'On a Mac, opening the login page in Safari 17 crashes the browser tab, which loses the draft.';
  expect(await scores({ title: 'Problem', description: reworded })).toEqual({ 'SHIP-7': 0.9 });
  const most = 'Opening the login page in Safari 17 crashes the browser tab';
  expect(await scores({ title: 'Problem', description: most })).toEqual({ 'SHIP-7': 0.65 });
  // Three words in common are not enough.
  expect(await scores({ title: 'Problem', description: 'The login page in Safari is slow' })).toEqual({});
});

it('does not count boilerplate descriptions that unrelated tickets share', async () => {
  const boilerplate = 'See attached screenshot.';
  await seedTicket(client, { title: 'Dark mode colours are wrong in settings', description: boilerplate });
  await seedTicket(client, { title: 'Login page crashes on submit' });
  expect(await scores({ title: 'Login crashes', description: boilerplate })).toEqual({ 'SHIP-7': 0.5 });
  // Six words too short to search descriptions with are not a query.
  expect(await scores({ title: 'Login crashes', description: 'a1 b2 c3 d4 e5 f6' })).toEqual({
    'SHIP-7': 0.5,
  });
});

it('never lets a description hide a duplicate that the title alone finds', async () => {
  const { key } = await seedTicket(client, { title: 'Login page' });
  const rows: unknown[][] = [];
  for (let n = 1; n <= 60; n++) rows.push([100 + n, `SHIP-${100 + n}`, `Login page theme colour ${n}`]);
  for (let n = 1; n <= 40; n++) rows.push([200 + n, `SHIP-${200 + n}`, `Password reset email ${n}`]);
  await db.batch(
    `INSERT INTO tickets (project_id, number, key, title, type, status, created_at, updated_at)
     VALUES (1, ?, ?, ?, 'task', 'todo', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
    rows,
  );
  const { items } = await similar({ title: 'Login page' });
  expect(items[0]).toMatchObject({ key, score: 1 });
  // Rarer description words ("password", "reset") must not push the exact title match out of the candidates.
  const description = 'After a password reset the login page shows password reset again';
  const withDescription = await similar({ title: 'Login page', description });
  expect(withDescription.items[0]).toMatchObject({ key, score: 1 });
});

it('scores an identical title 1 in scripts that NFKD would take apart', async () => {
  // NFKD splits Hangul into jamo and turns が into か + a combining mark; the index keeps them whole.
  const titles = ['한국어 번역 오류', 'ログイン画面がおかしい', 'हिन्दी अनुवाद'];
  for (const title of titles) await seedTicket(client, { title });
  for (const [i, title] of titles.entries()) {
    expect((await similar({ title })).items).toEqual([
      { key: `SHIP-${6 + i}`, title, status: 'backlog', score: 1 },
    ]);
  }
});

it('compares the unrounded score with the threshold', async () => {
  await seedTicket(client, { title: 'Export button colour wrong' });
  // Title: 1 word of 5 in common (0.2); description: 2 of 5 (0.4), so 0.2 + 0.8 * 0.3 * 0.4 = 0.296.
  const below = await scores({ title: 'Export fails', description: 'button colour flicker' });
  expect(below['SHIP-6']).toBeUndefined();
  // 2 of 4 description words: 0.2 + 0.8 * 0.3 * 0.5 = 0.32.
  expect((await scores({ title: 'Export fails', description: 'button colour' }))['SHIP-6']).toBe(0.32);
});

it('filters among many candidates, in the project asked for', async () => {
  const rows: unknown[][] = [];
  for (let n = 100; n < 600; n++)
    rows.push([n, `SHIP-${n}`, `Login page flaky ${n}`, n % 2 ? 'done' : 'todo']);
  await db.batch(
    `INSERT INTO tickets (project_id, number, key, title, type, status, created_at, updated_at)
     VALUES (1, ?, ?, ?, 'task', ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
    rows,
  );
  await seedTicket(client, { project: 'WEB', title: 'Login page flaky in web' });
  const open = await similar({ title: 'Login page flaky', limit: 20 });
  expect(open.items).toHaveLength(20);
  expect(open.items.every((item) => item.status === 'todo' && item.score === 0.75)).toBe(true);
  const web = await similar({ title: 'Login page flaky', project: 'WEB' });
  expect(web.items.map((item) => item.key)).toEqual(['WEB-2']);
  const closed = await similar({ title: 'Login page flaky 101', include_closed: true });
  expect(closed.items[0]).toMatchObject({ key: 'SHIP-101', status: 'done', score: 1 });
});

it('copes with titles of stop words, symbols and FTS syntax', async () => {
  await seedTicket(client, { title: 'It is what it is' });
  expect((await similar({ title: 'it is what it is' })).items.map((item) => [item.key, item.score])).toEqual([
    ['SHIP-6', 1],
  ]);
  // No word at all: nothing looked for, and said.
  expect(await similar({ title: '!!! ???' })).toEqual({
    items: [],
    note: 'The title has no word to compare: words are letters and digits',
  });
  for (const title of ['foo AND (', '"unbalanced', '*', 'NEAR(a b)', 'title:x', 'crash OR file', '-crash']) {
    await similar({ title });
  }
  // OR is a word, not FTS syntax: the titles with saving and file come first, not every ticket with saving.
  const or = (await similar({ title: 'saving OR file' })).items;
  expect(or.map((item) => item.key)).toEqual(['WEB-1', 'SHIP-1', 'SHIP-2']);
});

it('rejects bad input cleanly and keeps serving', async () => {
  const summary = await checkBadInputs(client, 'find_similar_tickets', findSimilarTool.input, {
    title: 'Crash on save',
  });
  expect(summary.cases).toBeGreaterThan(30);
  expect((await similar({ title: 'Crash when saving a file' })).items.length).toBeGreaterThan(0);
});

it('tells tickets apart by a number in the title', async () => {
  for (const n of [2, 3, 1]) await seedTicket(client, { title: `Phase ${n} rollout` });
  const { items } = await similar({ title: 'Phase 1 rollout' });
  expect(items[0]).toEqual({ key: 'SHIP-8', title: 'Phase 1 rollout', status: 'backlog', score: 1 });
  expect(
    items
      .slice(1)
      .map((item) => item.key)
      .sort(),
  ).toEqual(['SHIP-6', 'SHIP-7']);
  for (const item of items.slice(1)) expect(item.score).toBeLessThan(1);
});
