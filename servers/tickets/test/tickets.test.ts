import { callError, callOk, checkBadInputs, readText, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewTicket } from '../src/store/types.js';
import getTicket from '../src/tools/get_ticket.js';
import transitionTicket from '../src/tools/transition_ticket.js';
import updateTicket from '../src/tools/update_ticket.js';
import {
  connectTickets,
  heardPerWrite,
  seedProject,
  seedTicket,
  type TicketOut,
  type TicketsClient,
  untilWatching,
} from './helpers.js';
import { connectWithSql, type TestSql } from './sql.js';

interface HistoryOut {
  field: string;
  old: string | null;
  new: string | null;
  by: string | null;
  at: string;
}
interface Linked {
  key: string;
  title: string;
  status: string;
}
interface Details extends TicketOut {
  comments_total: number;
  history_total: number;
  comments?: { id: number; author: string | null; body: string; created_at: string }[];
  links?: Record<string, Linked[]>;
  history?: HistoryOut[];
}
interface Updated {
  key: string;
  version: number;
  updated_at: string;
  changed: string[];
}
interface Moved {
  key: string;
  status: string;
  resolution: string | null;
  version: number;
  updated_at: string;
}

let client: TicketsClient;
let closeSql: (() => Promise<void>) | undefined;
afterEach(async () => {
  await client?.close();
  const close = closeSql;
  closeSql = undefined;
  await close?.();
});

/** A connected server with project SHIP and `count` tickets SHIP-1…SHIP-count, and SQL on its database. */
async function setup(count = 1, options: Parameters<typeof connectTickets>[0] = {}) {
  const connected = await connectWithSql(options);
  client = connected.client;
  closeSql = connected.closeSql;
  await seedProject(client);
  for (let i = 1; i <= count; i++) await seedTicket(client, { title: `Ticket ${i}` });
  return connected;
}

const get = (key: string, include?: string[]) =>
  callOk<Details>(client, 'get_ticket', { key, ...(include ? { include } : {}) });
const update = (args: Record<string, unknown>) => callOk<Updated>(client, 'update_ticket', args);
const move = (args: Record<string, unknown>) => callOk<Moved>(client, 'transition_ticket', args);
/** Refused update_ticket / transition_ticket calls: the error body, after checking the code. */
const updateError = (args: Record<string, unknown>, code: Parameters<typeof callError>[3]) =>
  callError(client, 'update_ticket', args, code);
const moveError = (args: Record<string, unknown>, code: Parameters<typeof callError>[3]) =>
  callError(client, 'transition_ticket', args, code);
const idOf = async (sql: TestSql, key: string) =>
  Number(await sql.value('SELECT id FROM tickets WHERE key = ?', key));

describe('create_ticket', () => {
  it('takes the next key of the project, fills the defaults and answers key, title, status and version', async () => {
    await setup(0);
    const out = await callOk(client, 'create_ticket', {
      project: 'SHIP',
      title: '  Login fails  ',
      labels: ['UI', ' auth', 'ui'],
    });
    expect(out).toEqual({ key: 'SHIP-1', title: 'Login fails', status: 'backlog', version: 1 });
    expect(await get('SHIP-1', ['history'])).toMatchObject({
      type: 'task',
      priority: 'none',
      assignee: null,
      reporter: 'ana',
      labels: ['auth', 'ui'],
      parent: null,
      history: [{ field: 'created', old: null, new: 'SHIP-1', by: 'ana' }],
    });
    expect((await seedTicket(client, { title: 'Second' })).key).toBe('SHIP-2');
  });

  it('builds the ticket it returns from the row it stored (every field, as get_ticket reads it back)', async () => {
    const { store } = await setup(1);
    const inputs: NewTicket[] = [
      { project: 'ship', title: 'Bare' },
      {
        project: 'SHIP',
        title: 'Every field',
        description: '# Steps\n\n1. log in',
        type: 'bug',
        priority: 'high',
        assignee: 'bo',
        reporter: null,
        labels: ['UI', ' auth', 'ui'],
        estimate: 2.5,
        due_date: '2026-12-24',
        parent: 'ship-1',
      },
      { project: 'SHIP', title: 'Whole estimate', estimate: 3, reporter: 'cy', labels: [] },
      // What only a caller past the transports can pass: half an emoji, and -0 (stored as 0).
      { project: 'SHIP', title: 'Cut \uD83D', description: '\uDE80 off', assignee: 'x\uD83D', estimate: -0 },
    ];
    for (const input of inputs) {
      const { ticket: created } = await store.createTicket(input, 'ana');
      const { comments_total, history_total, ...stored } = await get(created.key, []);
      expect(created).toStrictEqual(stored);
      expect([comments_total, history_total]).toEqual([0, 1]);
    }
  });

  it('links a parent in any project', async () => {
    await setup(1);
    await seedProject(client, 'OPS', 'Operations');
    const child = await callOk<{ key: string }>(client, 'create_ticket', {
      project: 'OPS',
      title: 'Deploy it',
      parent: 'ship-1',
    });
    expect(child.key).toBe('OPS-1');
    expect((await get('OPS-1')).parent).toBe('SHIP-1');
  });

  it('refuses an unknown project or parent, and a refused ticket takes no number', async () => {
    await setup(1);
    const refuse = (args: Record<string, unknown>, code: 'not_found' | 'invalid_input') =>
      callError(client, 'create_ticket', { project: 'SHIP', title: 'x', ...args }, code);
    const project = await refuse({ project: 'NOPE' }, 'not_found');
    expect(project.message).toContain('NOPE');
    expect(project.hint).toContain('list_projects');
    expect((await refuse({ parent: 'SHIP-9' }, 'not_found')).message).toBe(
      "`parent`: No ticket SHIP-9: SHIP's keys go from SHIP-1 to SHIP-1",
    );
    expect((await refuse({ parent: 'nine' }, 'invalid_input')).message).toContain('parent');
    // An unknown project is said first, whatever the parent.
    expect((await refuse({ project: 'NOPE', parent: 'SHIP-9' }, 'not_found')).message).toContain('NOPE');
    const empty = await refuse({ parent: '' }, 'invalid_input');
    expect(empty.message).toContain('`parent`');
    expect(empty.hint).toContain('SHIP-42');
    // "none" or a blank, as some ask for no parent: the hint says how that is said.
    for (const parent of ['', 'none', ' None ']) {
      expect((await refuse({ parent }, 'invalid_input')).hint).toContain('for no parent, leave parent out');
    }
    expect((await refuse({ parent: 'nine' }, 'invalid_input')).hint).not.toContain('for no parent');
    // The counter was bumped inside the refused transactions and rolled back with them.
    expect((await seedTicket(client, { title: 'Next' })).key).toBe('SHIP-2');
  });

  it('says in words what a due date, a project key or a blank title should be', async () => {
    await setup(0);
    const refuse = (args: Record<string, unknown>) =>
      callError(client, 'create_ticket', { project: 'SHIP', title: 'x', ...args }, 'invalid_input');
    for (const due_date of ['2026-12-1', '12/01/2026', '2026-12-01T10:00:00Z']) {
      expect((await refuse({ due_date })).message).toBe(
        'Invalid arguments for create_ticket: `due_date` must be a date as YYYY-MM-DD, e.g. 2026-12-01',
      );
    }
    expect((await refuse({ due_date: '2026-02-30' })).message).toBe(
      'Invalid arguments for create_ticket: `due_date` must be a real calendar date',
    );
    // A year such as 0026 is a typo of 2026; 1900 on is taken.
    expect((await refuse({ due_date: '0026-12-01' })).message).toBe(
      'Invalid arguments for create_ticket: `due_date` must be a date from 1900 on, e.g. 2026-12-01',
    );
    expect((await refuse({ due_date: '1899-12-31' })).message).toContain('from 1900 on');
    expect((await refuse({ project: 'SHIP-1' })).message).toBe(
      '"SHIP-1" is a ticket key; its project is SHIP',
    );
    expect((await refuse({ project: 'SHIP_X' })).message).toBe(
      'No project with key "SHIP_X": a key is a letter, then 1-9 letters or digits, e.g. SHIP',
    );
    expect((await refuse({ title: '   ' })).message).toBe(
      'Invalid arguments for create_ticket: `title` must have a visible character',
    );
    // null for an optional enum that has "none": pass "none", or leave it out.
    expect((await refuse({ priority: null })).message).toContain(
      'got null: pass "none" for none, or leave the argument out',
    );
    expect((await refuse({ type: null })).message).toContain(
      'got null: leave the argument out rather than pass null',
    );
    const unset = await refuse({ assignee: null });
    expect(unset.message).toBe(
      'Invalid arguments for create_ticket: `assignee` must be a string, got null: pass "none" for none, or leave the argument out',
    );
    // Blanks around a project key or a date are dropped, as around a ticket key.
    const padded = await callOk<{ key: string }>(client, 'create_ticket', {
      project: ' ship ',
      title: 'Padded',
      due_date: ' 2026-12-01 ',
    });
    expect(await get(padded.key, [])).toMatchObject({ key: 'SHIP-1', due_date: '2026-12-01' });
  });

  it('takes a reporter (default the user; "me"; "none" for nobody) and "none" as no assignee', async () => {
    await setup(0);
    const reporterOf = async (args: Record<string, unknown>) =>
      (await get((await seedTicket(client, { title: 'Reported', ...args })).key, [])).reporter;
    expect(await reporterOf({})).toBe('ana');
    expect(await reporterOf({ reporter: 'bo' })).toBe('bo');
    expect(await reporterOf({ reporter: 'ME' })).toBe('ana');
    expect(await reporterOf({ reporter: 'none' })).toBeNull();
    const unassigned = await seedTicket(client, { title: 'Nobody on it', assignee: 'None' });
    expect((await get(unassigned.key, [])).assignee).toBeNull();
    const found = await callOk<{ items: { key: string }[] }>(client, 'search_tickets', { assignee: 'none' });
    expect(found.items.map((t) => t.key)).toContain(unassigned.key);
  });

  it('makes a title one line: a line break and the blanks around it become a space', async () => {
    await setup(0);
    const out = await seedTicket(client, { title: ' Login fails \r\n\n  on Safari\n' });
    expect((await seedTicket(client, { title: 'Form\ffeed, tab\vand\u0085NEL' })).title).toBe(
      'Form feed, tab and NEL',
    );
    expect(out.title).toBe('Login fails on Safari');
    expect((await seedTicket(client, { title: 'Paragraph\u2029 and line\u2028separators' })).title).toBe(
      'Paragraph and line separators',
    );
    await callError(client, 'create_ticket', { project: 'SHIP', title: '\n \n' }, 'invalid_input');
  });

  it('drops control characters from a title, and refuses one with nothing visible', async () => {
    await setup(0);
    expect((await seedTicket(client, { title: 'Tab\there, NUL\u0000 and bell\u0007' })).title).toBe(
      'Tab here, NUL and bell',
    );
    // What was around a dropped character is trimmed too.
    expect((await seedTicket(client, { title: '\u0007 Fix the bell \u0000' })).title).toBe('Fix the bell');
    for (const title of ['\u200b', '\u200b\u200d', '\u0000\u0007'])
      expect(
        (await callError(client, 'create_ticket', { project: 'SHIP', title }, 'invalid_input')).message,
      ).toMatch(/`title` must have a visible character/);
    await callError(client, 'update_ticket', { key: 'SHIP-1', title: '\u2060' }, 'invalid_input');
  });

  it('keeps a description and a comment as written but for control characters (NUL, escapes)', async () => {
    await setup(0);
    const description = 'Steps:\r\n\t1. open\u0000\n2. \u001b[31mred\u001b[0m\u0085';
    await seedTicket(client, { title: 'T', description });
    expect((await get('SHIP-1')).description).toBe('Steps:\r\n\t1. open\n2. [31mred[0m');
    await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: 'Seen\u0007 again\n\u0000' });
    expect((await get('SHIP-1', ['comments'])).comments?.[0]?.body).toBe('Seen again\n');
    await callError(client, 'add_ticket_comment', { key: 'SHIP-1', body: '\u0000\u0007 ' }, 'invalid_input');
    await update({ key: 'SHIP-1', description: 'Now\u0000 clean' });
    expect((await get('SHIP-1')).description).toBe('Now clean');
  });

  it('refuses a label that grows past 50 characters in lower case, which the label filter would refuse', async () => {
    await setup(0);
    const error = await callError(
      client,
      'create_ticket',
      { project: 'SHIP', title: 'T', labels: ['\u0130'.repeat(30)] },
      'invalid_input',
    );
    expect(error.message).toContain('must have at most 50 characters in lower case');
    // A label too long as given is told so once, not again for its lower case.
    const long = await callError(
      client,
      'create_ticket',
      { project: 'SHIP', title: 'T', labels: ['x'.repeat(51)] },
      'invalid_input',
    );
    expect(long.message).toBe(
      'Invalid arguments for create_ticket: `labels[0]` must have at most 50 characters',
    );
    const label = '\u0130'.repeat(25);
    await seedTicket(client, { title: 'T', labels: [label] });
    expect(await callOk(client, 'search_tickets', { label })).toMatchObject({ total: 1 });
    // An emoji is one character here too, as in every limit: 50 of them make a label the filter takes.
    const bugs = '\u{1F41B}'.repeat(50);
    await seedTicket(client, { title: 'Bugs', labels: [bugs] });
    expect(await callOk(client, 'search_tickets', { label: bugs })).toMatchObject({ total: 1 });
  });

  it('counts text as it is stored, composed: an accent sent as a second character adds none', async () => {
    await setup(1);
    // 200 and 50 characters composed, 240 and 60 as sent (e and a combining accent).
    const title = 'Cafe\u0301 '.repeat(40);
    const label = 'e\u0301'.repeat(30);
    const ticket = await seedTicket(client, { title, labels: [label], assignee: 'Rene\u0301' });
    const stored = await callOk<{ title: string; labels: string[]; assignee: string }>(client, 'get_ticket', {
      key: ticket.key,
    });
    expect(stored.title).toBe(title.normalize('NFC').trim());
    expect(stored.labels).toEqual([label.normalize('NFC')]);
    expect(stored.assignee).toBe('Ren\u00e9');
    expect(await callOk(client, 'search_tickets', { label })).toMatchObject({ total: 1 });
    // Past the limit composed is still past it.
    await callError(client, 'create_ticket', { project: 'SHIP', title: `${title}e` }, 'invalid_input');
  });

  it('refuses a label or a person that is not one line with something visible', async () => {
    await setup(1);
    for (const labels of [['\u200b'], ['a\nb'], ['a\u2028b'], ['ok', 'tab\there']]) {
      const error = await callError(
        client,
        'create_ticket',
        { project: 'SHIP', title: 'T', labels },
        'invalid_input',
      );
      expect(error.message).toMatch(/must be one line with a visible character/);
    }
    for (const assignee of ['\u200b\u200d', 'Ana\u0000', '@\u200b'])
      await callError(client, 'update_ticket', { key: 'SHIP-1', assignee }, 'invalid_input');
    for (const label of ['', '   ', '\u2060'])
      await callError(client, 'search_tickets', { label }, 'invalid_input');
    expect(await callOk(client, 'search_tickets', { label: 'needs review' })).toMatchObject({ total: 0 });
  });

  it("notifies the parent's subscribers of a new child", async () => {
    await setup(1);
    const updates = watchResourceUpdates(client);
    await client.subscribeResource({ uri: 'tickets://SHIP-1' });
    await seedTicket(client, { title: 'Child', parent: 'SHIP-1' });
    await expect.poll(() => updates).toEqual(['tickets://SHIP-1']);
  });
});

describe('get_ticket', () => {
  it('returns every field, comments and links by default, and the counts', async () => {
    await setup(0);
    await seedTicket(client, {
      title: 'Login fails',
      description: 'Steps:\n1. open',
      type: 'bug',
      priority: 'high',
      assignee: 'me',
      labels: ['Auth'],
      estimate: 3,
      due_date: '2030-01-31',
    });
    const ticket = await get('SHIP-1');
    expect(ticket).toMatchObject({
      key: 'SHIP-1',
      project: 'SHIP',
      title: 'Login fails',
      description: 'Steps:\n1. open',
      type: 'bug',
      status: 'backlog',
      priority: 'high',
      assignee: 'ana',
      reporter: 'ana',
      labels: ['auth'],
      estimate: 3,
      due_date: '2030-01-31',
      parent: null,
      resolution: null,
      version: 1,
      comments: [],
      comments_total: 0,
      links: {},
      history_total: 1,
    });
    expect(ticket).not.toHaveProperty('history');
    expect(ticket.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(ticket.updated_at).toBe(ticket.created_at);
  });

  it('accepts a lower-case key and returns only what include asks for', async () => {
    await setup(1);
    const bare = await get('ship-1', []);
    expect(bare.key).toBe('SHIP-1');
    for (const extra of ['comments', 'links', 'history']) expect(bare).not.toHaveProperty(extra);
    expect(bare).toMatchObject({ comments_total: 0, history_total: 1 });
    const withHistory = await get('SHIP-1', ['history']);
    expect(withHistory.history).toEqual([
      { field: 'created', old: null, new: 'SHIP-1', by: 'ana', at: withHistory.created_at },
    ]);
    expect(withHistory).not.toHaveProperty('comments');
  });

  it('returns the last 20 comments, newest last, with the count of all', async () => {
    const { sql } = await setup(1);
    const ticketId = await idOf(sql, 'SHIP-1');
    await sql.batch(
      "INSERT INTO comments (ticket_id, author, body) VALUES (?, 'bo', ?)",
      Array.from({ length: 25 }, (_, i) => [ticketId, `comment ${i + 1}`]),
    );
    const ticket = await get('SHIP-1');
    expect(ticket.comments_total).toBe(25);
    expect(ticket.comments?.map((c) => c.body)).toEqual(
      Array.from({ length: 20 }, (_, i) => `comment ${i + 6}`),
    );
    expect(ticket.comments?.[0]).toMatchObject({ author: 'bo' });
    // The older ones: before the first comment shown.
    const older = await callOk<Details>(client, 'get_ticket', {
      key: 'SHIP-1',
      include: ['comments'],
      before: ticket.comments?.[0]?.id,
    });
    expect(older.comments_total).toBe(25);
    expect(older.comments?.map((c) => c.body)).toEqual([
      'comment 1',
      'comment 2',
      'comment 3',
      'comment 4',
      'comment 5',
    ]);
    const none = await callOk<Details>(client, 'get_ticket', {
      key: 'SHIP-1',
      before: older.comments?.[0]?.id,
    });
    expect(none.comments).toEqual([]);
    // Without comments, `before` would do nothing: said rather than ignored.
    const ignored = await callError(
      client,
      'get_ticket',
      { key: 'SHIP-1', include: ['history'], before: 3 },
      'invalid_input',
    );
    expect(ignored.hint).toBe('Add "comments" to include, or leave before out');
    await callError(client, 'get_ticket', { key: 'SHIP-99', include: ['history'], before: 3 }, 'not_found');
    // Below the first comment id, `before` would show no comments: said too.
    for (const before of [0, -5]) {
      const low = await callError(client, 'get_ticket', { key: 'SHIP-1', before }, 'invalid_input');
      expect(low.message).toBe(`\`before\` is a comment id, and those start at 1 (got ${before})`);
      expect(low.hint).toBe('Pass the id of the oldest comment shown, or leave before out for the latest');
    }
    await callError(client, 'get_ticket', { key: 'SHIP-99', before: 0 }, 'not_found');
    expect(
      (await callOk<{ comments: unknown[] }>(client, 'get_ticket', { key: 'SHIP-1', before: 1 })).comments,
    ).toEqual([]);
  });

  it('returns the last 50 history entries, oldest first, with the total', async () => {
    await setup(1);
    for (let i = 1; i <= 60; i++) await update({ key: 'SHIP-1', estimate: i });
    const ticket = await get('SHIP-1', ['history']);
    expect(ticket.history_total).toBe(61);
    expect(ticket.history).toHaveLength(50);
    expect(ticket.history?.[0]).toMatchObject({ field: 'estimate', old: '10', new: '11' });
    expect(ticket.history?.at(-1)).toMatchObject({ field: 'estimate', old: '59', new: '60', by: 'ana' });
    expect(ticket.version).toBe(61);
  });

  it('keeps long comments and history values from flooding the answer: newest comments whole, the rest cut', async () => {
    await setup(1);
    const long = (c: string, n = 10_000) => c.repeat(n);
    // Four comments of the longest allowed size and a short one: the short one and the newest long one fit
    // the 20,000-character budget, the next would pass it.
    for (const c of ['a', 'b', 'c', 'd'])
      await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: long(c) });
    await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: 'short and new' });
    await update({ key: 'SHIP-1', description: long('x', 600) });
    await update({ key: 'SHIP-1', description: long('y', 700) });
    const ticket = await get('SHIP-1', ['comments', 'history']);
    expect(ticket.comments?.map((c) => c.body)).toEqual([
      `${long('a', 500)}… (10000 characters)`,
      `${long('b', 500)}… (10000 characters)`,
      `${long('c', 500)}… (10000 characters)`,
      long('d'),
      'short and new',
    ]);
    expect(ticket.history?.slice(-2)).toMatchObject([
      { field: 'description', old: '', new: `${long('x', 500)}… (600 characters)` },
      {
        field: 'description',
        old: `${long('x', 500)}… (600 characters)`,
        new: `${long('y', 500)}… (700 characters)`,
      },
    ]);
    // The ticket's own description stays whole.
    expect(ticket.description).toBe(long('y', 700));
  });

  it('counts characters as the input limits do when it cuts: an emoji is one', async () => {
    await setup(1);
    const emoji = (n: number) => '😀'.repeat(n);
    // Two comments of 10,000 emoji make the 20,000-character budget exactly: both stay whole.
    for (let i = 0; i < 2; i++)
      await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: emoji(10_000) });
    await update({ key: 'SHIP-1', description: emoji(400) });
    await update({ key: 'SHIP-1', description: emoji(600) });
    const ticket = await get('SHIP-1', ['comments', 'history']);
    expect(ticket.comments?.map((c) => c.body)).toEqual([emoji(10_000), emoji(10_000)]);
    expect(ticket.history?.slice(-2).map((h) => [h.old, h.new])).toEqual([
      ['', emoji(400)],
      [emoji(400), `${emoji(500)}… (600 characters)`],
    ]);
    await update({ key: 'SHIP-1', description: emoji(50_000) });
    const page = await readText(client, 'tickets://SHIP-1');
    expect(page).toContain('(The first 10000 of 50000 characters; get_ticket returns it all.)');
    expect(page).toContain(emoji(10_000));
    expect(page).not.toContain(emoji(10_001));
  });

  it('groups links by relation from each side (by key), with the other ticket key, title and status', async () => {
    const { sql } = await setup(4);
    // Stored once, canonical: blocks and duplicates source -> target, relates with the smaller id first.
    await sql.batch(
      `INSERT INTO links (source_id, type, target_id)
       SELECT s.id, ?, t.id FROM tickets s, tickets t WHERE s.key = ? AND t.key = ?`,
      [
        ['blocks', 'SHIP-1', 'SHIP-4'],
        ['blocks', 'SHIP-1', 'SHIP-2'],
        ['duplicates', 'SHIP-3', 'SHIP-1'],
        ['relates', 'SHIP-1', 'SHIP-4'],
        ['blocks', 'SHIP-3', 'SHIP-1'],
      ],
    );
    await move({ key: 'SHIP-2', status: 'todo' });
    const one = await get('SHIP-1', ['links']);
    expect(one.links).toEqual({
      blocks: [
        { key: 'SHIP-2', title: 'Ticket 2', status: 'todo' },
        { key: 'SHIP-4', title: 'Ticket 4', status: 'backlog' },
      ],
      duplicated_by: [{ key: 'SHIP-3', title: 'Ticket 3', status: 'backlog' }],
      relates: [{ key: 'SHIP-4', title: 'Ticket 4', status: 'backlog' }],
      blocked_by: [{ key: 'SHIP-3', title: 'Ticket 3', status: 'backlog' }],
    });
    expect((await get('SHIP-2')).links).toEqual({
      blocked_by: [{ key: 'SHIP-1', title: 'Ticket 1', status: 'backlog' }],
    });
    expect((await get('SHIP-3')).links).toEqual({
      duplicates: [{ key: 'SHIP-1', title: 'Ticket 1', status: 'backlog' }],
      blocks: [{ key: 'SHIP-1', title: 'Ticket 1', status: 'backlog' }],
    });
    expect((await get('SHIP-4')).links).toEqual({
      blocked_by: [{ key: 'SHIP-1', title: 'Ticket 1', status: 'backlog' }],
      relates: [{ key: 'SHIP-1', title: 'Ticket 1', status: 'backlog' }],
    });
  });

  it('answers not_found for an unknown key with a hint to search, invalid_input for a malformed one', async () => {
    await setup(1);
    const missing = await callError(client, 'get_ticket', { key: 'SHIP-99' }, 'not_found');
    expect(missing.message).toContain('SHIP-99');
    expect(missing.hint).toContain('search_tickets');
    await callError(client, 'get_ticket', { key: 'NOPE-1' }, 'not_found');
    const malformed = await callError(client, 'get_ticket', { key: 'ship 1' }, 'invalid_input');
    expect(malformed.message).toContain('SHIP-42');
    await callError(client, 'get_ticket', { key: 'SHIP-0' }, 'invalid_input');
    await callError(client, 'get_ticket', { key: 'SHIP-1', include: ['attachments'] }, 'invalid_input');
  });

  it('copes with bad input', async () => {
    await setup(1);
    const summary = await checkBadInputs(client, 'get_ticket', getTicket.input, { key: 'SHIP-1' });
    expect(summary.rejected).toBeGreaterThan(10);
  });
});

describe('update_ticket', () => {
  it('changes the given fields, bumps the version and returns the changed fields', async () => {
    await setup(1);
    const before = await get('SHIP-1');
    const out = await update({
      key: 'SHIP-1',
      title: 'Login fails on Safari',
      description: 'Only **Safari 17**',
      type: 'bug',
      priority: 'urgent',
      assignee: 'me',
      labels: ['Browser', 'safari', 'SAFARI'],
      estimate: 2.5,
      due_date: '2031-02-28',
    });
    expect(out).toMatchObject({
      key: 'SHIP-1',
      version: 2,
      changed: ['title', 'description', 'type', 'priority', 'assignee', 'estimate', 'due_date', 'labels'],
    });
    expect(out.updated_at >= before.updated_at).toBe(true);
    const after = await get('SHIP-1');
    expect(after).toMatchObject({
      title: 'Login fails on Safari',
      description: 'Only **Safari 17**',
      type: 'bug',
      priority: 'urgent',
      assignee: 'ana',
      labels: ['browser', 'safari'],
      estimate: 2.5,
      due_date: '2031-02-28',
      version: 2,
      updated_at: out.updated_at,
      created_at: before.created_at,
    });
  });

  it('records each changed field in history with old and new value, who and when', async () => {
    const { sql } = await setup(1);
    await update({ key: 'SHIP-1', priority: 'low', labels: ['a'], estimate: 5 });
    const out = await update({
      key: 'SHIP-1',
      priority: 'high',
      labels: ['a', 'b'],
      estimate: null,
      title: 'Ticket 1',
    });
    expect(out.changed).toEqual(['priority', 'estimate', 'labels']);
    const { history: entries = [] } = await get('SHIP-1', ['history']);
    expect(entries.slice(-3)).toEqual([
      { field: 'priority', old: 'low', new: 'high', by: 'ana', at: out.updated_at },
      { field: 'estimate', old: '5', new: null, by: 'ana', at: out.updated_at },
      { field: 'labels', old: '["a"]', new: '["a","b"]', by: 'ana', at: out.updated_at },
    ]);
    // The priority rank used for sorting follows the priority.
    expect(await sql.value('SELECT priority_rank FROM tickets')).toBe(1);
  });

  it('stores text in composed form (NFC), so the same text typed decomposed is no change', async () => {
    await setup(0);
    const composed = { title: 'Caf\u00e9 cr\u00e8me', description: 'Cr\u00e8me br\u00fbl\u00e9e' };
    const decomposed = {
      title: composed.title.normalize('NFD'),
      description: composed.description.normalize('NFD'),
    };
    const created = await callOk<{ key: string; title: string }>(client, 'create_ticket', {
      project: 'SHIP',
      ...decomposed,
    });
    expect(created.title).toBe(composed.title);
    expect(await update({ key: created.key, ...decomposed })).toMatchObject({ version: 1, changed: [] });
    await callOk(client, 'add_ticket_comment', { key: created.key, body: decomposed.description });
    const got = await get(created.key, ['comments']);
    expect(got).toMatchObject({
      description: composed.description,
      comments: [{ body: composed.description }],
    });
  });

  it('keeps the version, updated_at and history when nothing changes', async () => {
    await setup(1);
    await update({ key: 'SHIP-1', priority: 'high', labels: ['x'] });
    const before = await get('SHIP-1', ['history']);
    const out = await update({
      key: 'SHIP-1',
      priority: 'high',
      labels: ['X'],
      title: 'Ticket 1',
      expected_version: 2,
    });
    expect(out).toEqual({ key: 'SHIP-1', version: 2, updated_at: before.updated_at, changed: [] });
    expect(await update({ key: 'SHIP-1' })).toMatchObject({ version: 2, changed: [] });
    const after = await get('SHIP-1', ['history']);
    expect(after).toEqual(before);
  });

  it('clears assignee, estimate, due date and parent with null', async () => {
    await setup(2);
    await update({ key: 'SHIP-2', assignee: 'bo', estimate: 1, due_date: '2030-05-01', parent: 'SHIP-1' });
    expect(await get('SHIP-2', [])).toMatchObject({
      assignee: 'bo',
      estimate: 1,
      due_date: '2030-05-01',
      parent: 'SHIP-1',
    });
    const out = await update({ key: 'SHIP-2', assignee: null, estimate: null, due_date: null, parent: null });
    expect(out.changed).toEqual(['assignee', 'estimate', 'due_date', 'parent']);
    expect(await get('SHIP-2', [])).toMatchObject({
      assignee: null,
      estimate: null,
      due_date: null,
      parent: null,
    });
    // An empty date, or "none" for a parent, is refused, saying that null clears.
    const refused = (args: Record<string, unknown>) =>
      callError(client, 'update_ticket', { key: 'SHIP-2', ...args }, 'invalid_input');
    expect((await refused({ due_date: ' ' })).message).toContain('null clears it');
    expect((await refused({ parent: 'none' })).hint).toContain('null clears it');
  });

  it('clears the description and the labels with null', async () => {
    await setup(1);
    await update({ key: 'SHIP-1', description: 'Some detail', labels: ['ui'] });
    const out = await update({ key: 'SHIP-1', description: null, labels: null });
    expect(out.changed).toEqual(['description', 'labels']);
    expect(await get('SHIP-1', [])).toMatchObject({ description: '', labels: [] });
    await updateError({ key: 'SHIP-1', title: null }, 'invalid_input');
  });

  it('replaces labels, normalised, and records no change when they are the same', async () => {
    await setup(1);
    await update({ key: 'SHIP-1', labels: ['ui', 'auth'] });
    const out = await update({ key: 'SHIP-1', labels: ['Regression', 'UI', 'ui'] });
    expect(out.changed).toEqual(['labels']);
    expect((await get('SHIP-1', [])).labels).toEqual(['regression', 'ui']);
    const same = await update({ key: 'SHIP-1', labels: ['ui', 'REGRESSION'] });
    expect(same.changed).toEqual([]);
    await updateError({ key: 'SHIP-1', add_labels: ['x'] }, 'invalid_input');
  });

  it('points a status given to update_ticket at transition_ticket, and names a bad enum value back', async () => {
    await setup(1);
    const status = await updateError({ key: 'SHIP-1', status: 'todo' }, 'invalid_input');
    expect(status.hint).toMatch(/`status` is an argument of [a-z_, ]*transition_ticket/);
    // Only the tool that changes status: search_tickets takes `status` too, but reads.
    expect(status.hint).toBe('`status` is an argument of transition_ticket: call that tool for it');
    const priority = await updateError({ key: 'SHIP-1', priority: 'critical' }, 'invalid_input');
    expect(priority.message).toContain('got "critical"');
    expect(priority.message).not.toContain('did you mean');
    // The American spelling names the status it means.
    const canceled = await moveError({ key: 'SHIP-1', status: 'canceled' }, 'invalid_input');
    expect(canceled.message).toContain('got "canceled" (did you mean "cancelled"?)');
  });

  it('never sends a search or a comment to transition_ticket for an argument it lacks', async () => {
    await setup(1);
    // A filter search_tickets lacks: only transition_ticket takes `resolution`, and it changes a ticket.
    const filter = await callError(client, 'search_tickets', { resolution: 'fixed' }, 'invalid_input');
    expect(filter.message).toContain('unknown argument `resolution`');
    expect(filter.hint).toBe('Fix the arguments named above and call the tool again');
    // `comment` for add_ticket_comment's `body`: the message names `body`, the hint no other tool.
    const comment = await callError(
      client,
      'add_ticket_comment',
      { key: 'SHIP-1', comment: 'why' },
      'invalid_input',
    );
    expect(comment.message).toContain('(did you mean `body`?)');
    expect(comment.hint).toBe('Fix the arguments named above and call the tool again');
  });

  it('sends an argument a write tool lacks where it belongs, not to another tool that merely takes its name', async () => {
    await setup(1);
    const comment = 'A comment is added with add_ticket_comment, its text as `body`';
    const told: [string, Record<string, unknown>, string][] = [
      ['update_ticket', { key: 'SHIP-1', comment: 'why' }, comment],
      ['link_tickets', { key: 'SHIP-1', target: 'SHIP-2', type: 'relates', comment: 'why' }, comment],
      ['unlink_tickets', { key: 'SHIP-1', target: 'SHIP-2', type: 'relates', comment: 'why' }, comment],
      [
        'create_ticket',
        { project: 'SHIP', title: 'T', comment: 'why' },
        `${comment}, once the ticket exists, or put it in description`,
      ],
      ['update_ticket', { key: 'SHIP-1', reporter: 'bo' }, 'A ticket keeps the reporter it was created with'],
      [
        'update_ticket',
        { key: 'SHIP-1', project: 'OPS' },
        'A ticket stays in its project: to move the work, create a ticket in the other project and link the two (link_tickets, relates)',
      ],
      [
        'update_ticket',
        { key: 'SHIP-1', resolution: 'fixed' },
        'transition_ticket sets the resolution: as it closes the ticket, or on a closed one, given its status again with the new resolution',
      ],
      [
        'create_ticket',
        { project: 'SHIP', title: 'T', status: 'todo' },
        'A new ticket starts in backlog: move it with transition_ticket once it exists',
      ],
      [
        'create_ticket',
        { project: 'SHIP', title: 'T', key: 'SHIP-9' },
        "A new ticket's key is its project's next number, given in the answer: pass project",
      ],
    ];
    for (const [tool, args, hint] of told) {
      const error = await callError(client, tool, args, 'invalid_input');
      expect(error.hint, `${tool} ${JSON.stringify(args)}`).toBe(hint);
    }
    // Without the key as well: the comment is not taken for a misnamed key.
    const keyless = await callError(client, 'update_ticket', { comment: 'why' }, 'invalid_input');
    expect(keyless.message).toContain('`key` is required');
    expect(keyless.message).not.toContain('did you mean');
    expect(keyless.hint).toBe(comment);
    // Another tracker's name for the title is taken for a rename, not for create_project's `name`.
    const name = await callError(client, 'create_ticket', { project: 'SHIP', name: 'T' }, 'invalid_input');
    expect(name.message).toContain('(did you mean `title`?)');
    expect(name.hint).toBe('Fix the arguments named above and call the tool again');
  });

  it('names the argument meant by a name other trackers use, or by `version` as get_ticket answers it', async () => {
    await setup(1);
    const asked: [string, Record<string, unknown>, string][] = [
      ['create_ticket', { project: 'SHIP', title: 'T', tags: ['ui'] }, 'labels'],
      ['create_ticket', { project: 'SHIP', title: 'T', assigned_to: 'bo' }, 'assignee'],
      ['update_ticket', { key: 'SHIP-1', version: 1, title: 'T' }, 'expected_version'],
      ['transition_ticket', { key: 'SHIP-1', status: 'todo', version: 1 }, 'expected_version'],
      ['search_tickets', { q: 'crash' }, 'query'],
      ['search_tickets', { tags: 'ui' }, 'label'],
    ];
    for (const [tool, args, meant] of asked) {
      const error = await callError(client, tool, args, 'invalid_input');
      expect(error.message, tool).toContain(`(did you mean \`${meant}\`?)`);
    }
  });

  it('takes enum values written in another case or with blanks: High is high, In Review is in_review', async () => {
    await setup(1);
    await update({ key: 'SHIP-1', priority: 'High', type: 'BUG' });
    expect(await get('SHIP-1', [])).toMatchObject({ priority: 'high', type: 'bug' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'TODO' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'In Progress' });
    expect((await get('SHIP-1', [])).status).toBe('in_progress');
    const found = await callOk<{ total: number }>(client, 'search_tickets', { status: ['in-progress'] });
    expect(found.total).toBe(1);
  });

  it('names the ticket a near-miss key most likely means, and why a well-formed key finds nothing', async () => {
    await setup(2);
    for (const written of ['SHIP1', 'SHIP 1', 'ship_1', 'SHIP-01', 'SHIP-1.', 'browse/SHIP-1']) {
      const error = await updateError({ key: written, title: 'x' }, 'invalid_input');
      expect(error.message).toBe(
        `"${written}" is not a ticket key; keys look like SHIP-42; did you mean SHIP-1 ("Ticket 1")?`,
      );
      expect(error.hint).toBe('Call again with key SHIP-1');
    }
    // A number alone: the keys with that number, project first.
    const one = await updateError({ key: '2', title: 'x' }, 'invalid_input');
    expect(one.message).toBe(
      '"2" is not a ticket key; keys look like SHIP-42, with the project first: SHIP-2',
    );
    expect(one.hint).toBe('Call again with that key');
    await seedProject(client, 'OPS', 'Ops');
    await seedTicket(client, { project: 'OPS', title: 'Ops 1' });
    const number = await updateError({ key: '#1', title: 'x' }, 'invalid_input');
    expect(number.message).toBe(
      '"#1" is not a ticket key; keys look like SHIP-42, with the project first: OPS-1 or SHIP-1',
    );
    expect(number.hint).toBe('Call again with the key of the project you mean');
    // Every split of a number run together with its project is tried: SHIP21 may be SHIP-21 or SHIP2-1.
    await seedProject(client, 'SHIP2', 'Ship two');
    await seedTicket(client, { project: 'SHIP2', title: 'Two one' });
    const both = await updateError({ key: 'SHIP21', title: 'x' }, 'invalid_input');
    expect(both.message).toBe(
      '"SHIP21" is not a ticket key; keys look like SHIP-42; did you mean SHIP2-1 ("Two one")?',
    );
    // Text with more than one key in it, or other words, names none.
    const list = await updateError({ key: 'SHIP-1, SHIP–2', title: 'x' }, 'invalid_input');
    expect(list.message).toBe(
      '"SHIP-1, SHIP–2" is not a ticket key; keys look like SHIP-42: it names more than one ticket',
    );
    expect(list.hint).toBe('Call once per ticket, with one key each time');
    const words = await updateError({ key: 'FIX OPS 1', title: 'x' }, 'invalid_input');
    expect(words.message).toBe('"FIX OPS 1" is not a ticket key; keys look like SHIP-42');
    // A dash that is not a hyphen still separates a project from its number.
    const dash = await updateError({ key: 'SHIP–1', title: 'x' }, 'invalid_input');
    expect(dash.message).toContain('did you mean SHIP-1 ("Ticket 1")?');
    // A title named in a message is quoted and escaped: its quotes, and a bidi override that would turn the
    // rest of the message around.
    await update({ key: 'SHIP-1', title: 'Evil \u202E"q"' });
    const evil = await updateError({ key: 'ship1', title: 'x' }, 'invalid_input');
    expect(evil.message).toContain('did you mean SHIP-1 ("Evil \\u202e\\"q\\"")?');
    // A project key alone: say so, and where its tickets are.
    const project = await updateError({ key: 'ship', title: 'x' }, 'invalid_input');
    expect(project.message).toBe('"ship" is not a ticket key; keys look like SHIP-42: SHIP is a project key');
    expect(project.hint).toBe(
      'A ticket key adds its number (SHIP-1 to SHIP-2); call search_tickets with project SHIP to find it',
    );
    // Text that names no existing ticket gets the general answer.
    const nothing = await updateError({ key: 'SHIP9', title: 'x' }, 'invalid_input');
    expect(nothing.message).toBe('"SHIP9" is not a ticket key; keys look like SHIP-42');
    expect(nothing.hint).toContain('search_tickets');
    // A well-formed key: is there such a project, and how far do its keys go?
    const noProject = await updateError({ key: 'NOPE-1', title: 'x' }, 'not_found');
    expect(noProject.message).toBe('No ticket NOPE-1: there is no project NOPE');
    expect(noProject.hint).toBe('Call list_projects to see the project keys');
    const past = await updateError({ key: 'SHIP-9', title: 'x' }, 'not_found');
    expect(past.message).toBe("No ticket SHIP-9: SHIP's keys go from SHIP-1 to SHIP-2");
    await seedProject(client, 'NEW', 'New');
    const empty = await updateError({ key: 'NEW-1', title: 'x' }, 'not_found');
    expect(empty.message).toBe('No ticket NEW-1: NEW has no tickets yet');
    expect((await updateError({ key: 'new', title: 'x' }, 'invalid_input')).hint).toBe(
      'NEW has no tickets yet',
    );
  });

  it('reads a mention as the name it mentions: @ana is ana', async () => {
    await setup(0);
    const { key } = await seedTicket(client, { title: 'Mentioned', assignee: '@ana' });
    expect((await get(key, [])).assignee).toBe('ana');
    expect((await callOk<{ total: number }>(client, 'search_tickets', { assignee: '@me' })).total).toBe(1);
    // A blank after the @ is not part of the name either.
    const spaced = await seedTicket(client, { title: 'Spaced', assignee: '@ bob', reporter: ' @ bob ' });
    expect(await get(spaced.key, [])).toMatchObject({ assignee: 'bob', reporter: 'bob' });
    expect((await callOk<{ total: number }>(client, 'search_tickets', { assignee: 'bob' })).total).toBe(1);
    // A lone @ names nobody; nor does a name still starting with one (stored, `@bob` would be bob, and
    // `@me` the configured user, when copied back).
    const lone = await callError(client, 'update_ticket', { key, assignee: ' @ ' }, 'invalid_input');
    expect(lone.message).toContain('must name someone');
    for (const assignee of ['@@bob', '@@me']) {
      const doubled = await callError(client, 'update_ticket', { key, assignee }, 'invalid_input');
      expect(doubled.message).toContain('a name does not start with @');
    }
  });

  it('refuses a name whose composed form (NFC) has more than 100 characters', async () => {
    await setup(1);
    // क़ (U+0958) is two characters once composed, as every stored name is.
    const long = '\u0958'.repeat(51);
    for (const field of ['assignee', 'reporter'] as const) {
      const error = await callError(
        client,
        'create_ticket',
        { project: 'SHIP', title: 'T', [field]: long },
        'invalid_input',
      );
      expect(error.message).toContain('must have at most 100 characters');
    }
    const error = await updateError({ key: 'SHIP-1', assignee: long }, 'invalid_input');
    expect(error.message).toContain('must have at most 100 characters');
    await update({ key: 'SHIP-1', assignee: '\u0958'.repeat(50) });
    expect([...((await get('SHIP-1', [])).assignee ?? '')]).toHaveLength(100);
  });

  it('refuses a stale expected_version with a conflict naming the current version, changing nothing', async () => {
    await setup(1);
    await update({ key: 'SHIP-1', priority: 'high', expected_version: 1 });
    const error = await updateError({ key: 'SHIP-1', title: 'Stale edit', expected_version: 1 }, 'conflict');
    expect(error.message).toContain('version 2');
    expect(error.hint).toContain('get_ticket');
    expect(error.hint).toContain('expected_version 2');
    expect(error.details).toEqual({ current_version: 2 });
    expect(await get('SHIP-1', [])).toMatchObject({ title: 'Ticket 1', version: 2 });
    // A stale version is refused even when the update would change nothing.
    await updateError({ key: 'SHIP-1', expected_version: 1 }, 'conflict');
    // A guess past the current version is not called stale.
    const ahead = await updateError({ key: 'SHIP-1', title: 'Guess', expected_version: 5 }, 'conflict');
    expect(ahead.message).toBe(
      'SHIP-1 is at version 2, not 5: version 5 does not exist yet. Nothing was changed',
    );
    // A version no ticket ever has is a bad argument, not a stale one.
    const zero = await updateError({ key: 'SHIP-1', title: 'Zero', expected_version: 0 }, 'invalid_input');
    expect(zero.message).toBe('expected_version 0 is no version: versions start at 1');
    expect(zero.hint).toBe('Call get_ticket for SHIP-1 to see its version (now 2)');
    expect(await update({ key: 'SHIP-1', title: 'Fresh edit', expected_version: 2 })).toMatchObject({
      version: 3,
    });
  });

  it('refuses status (that is transition_ticket) and other unknown fields', async () => {
    await setup(1);
    const error = await updateError({ key: 'SHIP-1', status: 'done' }, 'invalid_input');
    expect(error.message).toContain('`status`');
    const unknown = await updateError({ key: 'SHIP-1', title: 'x', colour: 'red' }, 'invalid_input');
    expect(unknown.message).toContain('unknown argument `colour` (allowed: key, expected_version, title,');
    expect((await get('SHIP-1', [])).title).toBe('Ticket 1');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'update_ticket')?.description).toContain('transition_ticket');
  });

  it('sets a parent, also in another project, and refuses itself as parent', async () => {
    await setup(2);
    await seedProject(client, 'WEB', 'Website');
    await seedTicket(client, { project: 'WEB', title: 'Epic' });
    expect(await update({ key: 'SHIP-2', parent: 'ship-1' })).toMatchObject({ changed: ['parent'] });
    expect((await get('SHIP-2', [])).parent).toBe('SHIP-1');
    await update({ key: 'SHIP-2', parent: 'WEB-1' });
    const moved = await get('SHIP-2', ['history']);
    expect(moved.parent).toBe('WEB-1');
    expect(moved.history?.at(-1)).toMatchObject({ field: 'parent', old: 'SHIP-1', new: 'WEB-1' });
    const self = await updateError({ key: 'SHIP-2', parent: 'SHIP-2' }, 'invalid_input');
    expect(self.message).toContain('own parent');
  });

  it('refuses a parent that would close a cycle, naming it (2 and 3 levels)', async () => {
    await setup(3);
    await update({ key: 'SHIP-2', parent: 'SHIP-1' });
    const two = await updateError({ key: 'SHIP-1', parent: 'SHIP-2' }, 'invalid_input');
    expect(two.message).toContain('cycle');
    expect(two.message).toContain('SHIP-1 -> SHIP-2 -> SHIP-1');
    expect(two.hint).toContain('SHIP-2');

    await update({ key: 'SHIP-3', parent: 'SHIP-2' });
    const three = await updateError({ key: 'SHIP-1', parent: 'SHIP-3' }, 'invalid_input');
    expect(three.message).toContain('SHIP-1 -> SHIP-3 -> SHIP-2 -> SHIP-1');
    expect(three.hint).toContain('update_ticket');
    // Nothing changed, not even the other fields of the refused call.
    await updateError({ key: 'SHIP-1', parent: 'SHIP-3', title: 'Changed' }, 'invalid_input');
    expect(await get('SHIP-1', [])).toMatchObject({ parent: null, title: 'Ticket 1', version: 1 });
    // A sibling or an ancestor's ancestor is fine.
    expect(await update({ key: 'SHIP-3', parent: 'SHIP-1' })).toMatchObject({ changed: ['parent'] });
  });

  it('checks a new parent past a loop that a broken file holds, and still refuses a real cycle', async () => {
    const { sql } = await setup(8);
    // No tool makes a loop; a file edited by hand may hold one.
    await sql.run('UPDATE tickets SET parent_id = 7 WHERE id = 6');
    await sql.run('UPDATE tickets SET parent_id = 6 WHERE id = 7');
    expect(await update({ key: 'SHIP-8', parent: 'SHIP-6' })).toMatchObject({ changed: ['parent'] });
    const error = await updateError({ key: 'SHIP-6', parent: 'SHIP-8' }, 'invalid_input');
    expect(error.message).toContain('SHIP-6 -> SHIP-8 -> SHIP-6');
  });

  it('names a long cycle by its ends, so the message stays short', async () => {
    await setup(30);
    for (let i = 2; i <= 30; i++) await update({ key: `SHIP-${i}`, parent: `SHIP-${i - 1}` });
    const error = await updateError({ key: 'SHIP-1', parent: 'SHIP-30' }, 'invalid_input');
    expect(error.message).toContain('SHIP-1 -> SHIP-30 -> SHIP-29 -> SHIP-28 -> SHIP-27 -> SHIP-26 -> …');
    expect(error.message).toMatch(/… -> SHIP-5 -> SHIP-4 -> SHIP-3 -> SHIP-2 -> SHIP-1$/);
    expect(error.message).not.toContain('SHIP-15');
  });

  it('answers not_found for an unknown ticket or parent, invalid_input for malformed keys', async () => {
    await setup(1);
    const missing = await updateError({ key: 'SHIP-7', title: 'x' }, 'not_found');
    expect(missing.hint).toContain('search_tickets');
    const parent = await updateError({ key: 'SHIP-1', parent: 'SHIP-7' }, 'not_found');
    expect(parent.message).toBe("`parent`: No ticket SHIP-7: SHIP's keys go from SHIP-1 to SHIP-1");
    const malformed = await updateError({ key: 'SHIP_X', title: 'x' }, 'invalid_input');
    expect(malformed.hint).toContain('search_tickets');
    const badParent = await updateError({ key: 'SHIP-1', parent: 'seven' }, 'invalid_input');
    expect(badParent.message).toContain('`parent`');
    expect(badParent.hint).toContain('SHIP-42');
  });

  it('refuses "unassigned" and other words for nobody as a name, naming "none"', async () => {
    await setup(1);
    for (const word of ['unassigned', 'Nobody', 'null', 'No-one', 'n/a']) {
      const error = await updateError({ key: 'SHIP-1', assignee: word }, 'invalid_input');
      expect(error.message).toBe(`"${word}" is not a name: nobody is written "none"`);
      expect(error.hint).toContain('"none"');
      await callError(client, 'search_tickets', { assignee: word }, 'invalid_input');
      await callError(
        client,
        'create_ticket',
        { project: 'SHIP', title: 'x', reporter: word },
        'invalid_input',
      );
    }
    expect((await get('SHIP-1', [])).assignee).toBeNull();
    await update({ key: 'SHIP-1', assignee: 'Nobodyelse' });
    // The configured user's own name is a name: "me" stores it, and it can be searched for.
    const own = await connectTickets({ user: 'Nobody' });
    try {
      await seedProject(own.client);
      await callOk(own.client, 'create_ticket', { project: 'SHIP', title: 'Mine', assignee: 'me' });
      const found = await callOk<{ items: { assignee: string }[] }>(own.client, 'search_tickets', {
        assignee: 'nobody',
      });
      expect(found.items.map((item) => item.assignee)).toEqual(['Nobody']);
    } finally {
      await own.client.close();
    }
  });

  it('refuses "me" when the server has no configured user', async () => {
    const connected = await connectTickets({ user: undefined });
    client = connected.client;
    await seedProject(client);
    await seedTicket(client, { title: 'Nobody' });
    const error = await updateError({ key: 'SHIP-1', assignee: 'me' }, 'invalid_input');
    expect(error.hint).toContain('SHIPYARD_USER');
    // Changes by an unknown user are still recorded, with by null.
    await update({ key: 'SHIP-1', assignee: 'bo' });
    expect((await get('SHIP-1', ['history'])).history?.at(-1)).toMatchObject({ field: 'assignee', by: null });
  });

  it('notifies subscribers of the ticket and of its old and new parent, not on a no-op', async () => {
    await setup(3);
    await update({ key: 'SHIP-3', parent: 'SHIP-1' });
    const updates = watchResourceUpdates(client);
    for (const uri of [
      'tickets://SHIP-1',
      'tickets://SHIP-2',
      'tickets://SHIP-3',
      'tickets://SHIP-3/history',
    ]) {
      await client.subscribeResource({ uri });
    }
    await update({ key: 'SHIP-3', title: 'Ticket 3' });
    await update({ key: 'SHIP-3', parent: 'SHIP-2' });
    await expect
      .poll(() => [...updates].sort())
      .toEqual(['tickets://SHIP-1', 'tickets://SHIP-2', 'tickets://SHIP-3', 'tickets://SHIP-3/history']);
  });

  it('notifies the parent and the linked tickets of a new title, which they show', async () => {
    await setup(4);
    await update({ key: 'SHIP-2', parent: 'SHIP-1' });
    await callOk(client, 'link_tickets', { key: 'SHIP-2', type: 'blocked_by', target: 'SHIP-3' });
    const updates = watchResourceUpdates(client);
    for (const uri of ['tickets://SHIP-1', 'tickets://SHIP-3', 'tickets://SHIP-4']) {
      await client.subscribeResource({ uri });
    }
    await update({ key: 'SHIP-2', estimate: 3 });
    await update({ key: 'SHIP-2', title: 'Renamed' });
    await expect.poll(() => [...updates].sort()).toEqual(['tickets://SHIP-1', 'tickets://SHIP-3']);
  });

  it('copes with bad input', async () => {
    await setup(1);
    const summary = await checkBadInputs(client, 'update_ticket', updateTicket.input, {
      key: 'SHIP-1',
      title: 'Valid title',
    });
    expect(summary.rejected).toBeGreaterThan(50);
  });
});

describe('transition_ticket', () => {
  it('walks the workflow to done, recording history and bumping the version', async () => {
    await setup(1);
    const steps = ['todo', 'in_progress', 'in_review', 'done'];
    let version = 1;
    for (const status of steps) {
      const out = await move({ key: 'SHIP-1', status, expected_version: version });
      version += 1;
      expect(out).toMatchObject({ key: 'SHIP-1', status, version });
    }
    const done = await get('SHIP-1', ['history']);
    expect(done).toMatchObject({ status: 'done', resolution: 'done', version: 5 });
    expect(done.history?.slice(1).map((h) => [h.field, h.old, h.new, h.by])).toEqual([
      ['status', 'backlog', 'todo', 'ana'],
      ['status', 'todo', 'in_progress', 'ana'],
      ['status', 'in_progress', 'in_review', 'ana'],
      ['status', 'in_review', 'done', 'ana'],
      ['resolution', null, 'done', 'ana'],
    ]);
    expect(done.history?.at(-1)?.at).toBe(done.updated_at);
  });

  it('sets the given resolution and adds the comment by the user', async () => {
    await setup(1);
    for (const status of ['todo', 'in_progress', 'in_review']) await move({ key: 'SHIP-1', status });
    const out = await move({
      key: 'SHIP-1',
      status: 'done',
      resolution: ' fixed ',
      comment: 'Shipped in 1.2',
    });
    expect(out).toMatchObject({ status: 'done', resolution: 'fixed' });
    const ticket = await get('SHIP-1');
    expect(ticket.comments).toEqual([
      { id: expect.any(Number), author: 'ana', body: 'Shipped in 1.2', created_at: out.updated_at },
    ]);
    expect(ticket.comments_total).toBe(1);
  });

  it("cancels any open ticket (won't do by default) and reopens closed ones to todo, clearing the resolution", async () => {
    await setup(2);
    expect(await move({ key: 'SHIP-1', status: 'cancelled' })).toMatchObject({ resolution: "won't do" });
    await move({ key: 'SHIP-2', status: 'todo' });
    await move({ key: 'SHIP-2', status: 'cancelled', resolution: 'duplicate' });
    const reopened = await move({ key: 'SHIP-2', status: 'todo' });
    expect(reopened).toMatchObject({ status: 'todo', resolution: null, version: 4 });
    const ticket = await get('SHIP-2', ['history']);
    expect(ticket.resolution).toBeNull();
    expect(ticket.history?.slice(-2).map((h) => [h.field, h.old, h.new])).toEqual([
      ['status', 'cancelled', 'todo'],
      ['resolution', 'duplicate', null],
    ]);
  });

  it('changes only the resolution of a closed ticket given its own status again', async () => {
    await setup(1);
    await move({ key: 'SHIP-1', status: 'cancelled', resolution: 'duplicate' });
    const out = await move({
      key: 'SHIP-1',
      status: 'cancelled',
      resolution: 'obsolete',
      comment: 'Not a dup',
    });
    expect(out).toMatchObject({ status: 'cancelled', resolution: 'obsolete', version: 3 });
    const ticket = await get('SHIP-1', ['history', 'comments']);
    // No status entry: the status stayed.
    expect(ticket.history?.map((h) => [h.field, h.old, h.new])).toEqual([
      ['created', null, 'SHIP-1'],
      ['status', 'backlog', 'cancelled'],
      ['resolution', null, 'duplicate'],
      ['resolution', 'duplicate', 'obsolete'],
    ]);
    expect(ticket.comments?.map((c) => c.body)).toEqual(['Not a dup']);
    // The same resolution, or none: nothing to change, and the refusal says both ways on.
    for (const args of [{ resolution: 'obsolete' }, {}]) {
      const error = await moveError({ key: 'SHIP-1', status: 'cancelled', ...args }, 'invalid_input');
      expect(error.message).toBe(
        'SHIP-1 is already cancelled (resolution obsolete); from cancelled it can move to todo or backlog',
      );
      expect(error.hint).toBe(
        'Pass status todo or backlog to reopen it, or status cancelled with another resolution to change only that',
      );
    }
    expect((await get('SHIP-1', [])).version).toBe(3);
    // An open ticket's own status is refused as before, resolution or not.
    await move({ key: 'SHIP-1', status: 'todo' });
    const open = await moveError({ key: 'SHIP-1', status: 'todo', resolution: 'x' }, 'invalid_input');
    expect(open.message).toContain('already todo;');
    expect(open.hint).toBe('Pass status in_progress, in_review, done or cancelled');
  });

  it("notifies only the ticket's own pages when its resolution is corrected", async () => {
    await setup(2);
    await update({ key: 'SHIP-2', parent: 'SHIP-1' });
    await move({ key: 'SHIP-2', status: 'cancelled' });
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, ['tickets://SHIP-1', 'tickets://SHIP-2', 'tickets://projects']);
    await move({ key: 'SHIP-2', status: 'cancelled', resolution: 'obsolete' });
    await expect.poll(() => [...updates]).toEqual(heardPerWrite(['tickets://SHIP-2']));
    // The parent shows its child's status, not its resolution: a change of its own is the next it hears.
    await update({ key: 'SHIP-1', priority: 'high' });
    await expect
      .poll(() => [...updates])
      .toEqual([...heardPerWrite(['tickets://SHIP-2']), ...heardPerWrite(['tickets://SHIP-1'])]);
  });

  it('moves an open ticket to any later status in one call, with one history entry', async () => {
    await setup(1);
    const out = await move({ key: 'SHIP-1', status: 'done', expected_version: 1, resolution: 'fixed' });
    expect(out).toMatchObject({ key: 'SHIP-1', status: 'done', resolution: 'fixed', version: 2 });
    const done = await get('SHIP-1', ['history']);
    expect(done.history?.slice(1).map((h) => [h.field, h.old, h.new])).toEqual([
      ['status', 'backlog', 'done'],
      ['resolution', null, 'fixed'],
    ]);
    // Closed tickets reopen to todo or to backlog, in one call too.
    expect(await move({ key: 'SHIP-1', status: 'backlog' })).toMatchObject({
      status: 'backlog',
      resolution: null,
    });
    expect(await move({ key: 'SHIP-1', status: 'in_review' })).toMatchObject({
      status: 'in_review',
      version: 4,
    });
  });

  it('refuses a move back between open statuses, naming the allowed statuses and the path', async () => {
    await setup(1);
    await move({ key: 'SHIP-1', status: 'in_progress' });
    const error = await moveError({ key: 'SHIP-1', status: 'todo' }, 'invalid_input');
    expect(error.message).toBe(
      'SHIP-1 cannot move from in_progress to todo; from in_progress it can move to in_review, done or cancelled',
    );
    expect(error.hint).toContain('in_progress -> cancelled -> todo');
    expect(error.details).toEqual({ status: 'in_progress', allowed: ['in_review', 'done', 'cancelled'] });
    await move({ key: 'SHIP-1', status: 'cancelled' });
    const closed = await moveError({ key: 'SHIP-1', status: 'in_progress' }, 'invalid_input');
    expect(closed.message).toContain('can move to todo or backlog');
    expect(closed.hint).toBe('Move it in 2 calls: cancelled -> todo -> in_progress');
    // done and cancelled are not one move apart: a closed ticket reopens first.
    const recast = await moveError({ key: 'SHIP-1', status: 'done' }, 'invalid_input');
    expect(recast.hint).toBe('Move it in 2 calls: cancelled -> todo -> done');
  });

  it('offers a comment for a move back to an open status, or a restart through cancelled, never done', async () => {
    await setup(1);
    await move({ key: 'SHIP-1', status: 'in_review' });
    const error = await moveError({ key: 'SHIP-1', status: 'in_progress' }, 'invalid_input');
    expect(error.hint).toBe(
      'There is no move back from in_review to in_progress. To keep it in_review and say why, call ' +
        'add_ticket_comment; to restart the work, move it in 3 calls: in_review -> cancelled -> todo ' +
        '-> in_progress, with a resolution for the cancel that says why (e.g. "sent back")',
    );
    const toBacklog = await moveError({ key: 'SHIP-1', status: 'backlog' }, 'invalid_input');
    expect(toBacklog.hint).toContain('move it in 2 calls: in_review -> cancelled -> backlog');
  });

  it('refuses a move to the current status, naming the allowed ones', async () => {
    await setup(1);
    await move({ key: 'SHIP-1', status: 'todo' });
    const error = await moveError({ key: 'SHIP-1', status: 'todo' }, 'invalid_input');
    expect(error.message).toContain('already todo');
    expect(error.message).toContain('in_progress, in_review, done or cancelled');
  });

  it('refuses a resolution on a move that does not close the ticket', async () => {
    await setup(1);
    const error = await moveError({ key: 'SHIP-1', status: 'todo', resolution: 'fixed' }, 'invalid_input');
    expect(error.message).toContain('done or cancelled');
  });

  it('changes nothing, comment included, when refused', async () => {
    const { sql } = await setup(1);
    await moveError({ key: 'SHIP-1', status: 'backlog', comment: 'Lost comment' }, 'invalid_input');
    await moveError({ key: 'SHIP-1', status: 'todo', comment: 'Lost too', expected_version: 9 }, 'conflict');
    expect(await sql.all('SELECT * FROM comments')).toEqual([]);
    expect(await get('SHIP-1', [])).toMatchObject({ status: 'backlog', version: 1 });
  });

  it('refuses a stale expected_version with a conflict naming the current version', async () => {
    await setup(1);
    await update({ key: 'SHIP-1', priority: 'high' });
    const error = await moveError({ key: 'SHIP-1', status: 'todo', expected_version: 1 }, 'conflict');
    expect(error.message).toContain('version 2');
    expect(error.hint).toContain('get_ticket');
  });

  it('answers not_found for an unknown key and invalid_input for a malformed one', async () => {
    await setup(1);
    const missing = await moveError({ key: 'SHIP-2', status: 'todo' }, 'not_found');
    expect(missing.hint).toContain('search_tickets');
    await moveError({ key: '42', status: 'todo' }, 'invalid_input');
    await moveError({ key: 'SHIP-1', status: 'closed' }, 'invalid_input');
  });

  it('notifies subscribers of the ticket, its history and its project, and the project list when it opens or closes', async () => {
    await setup(2);
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, [
      'tickets://SHIP-1',
      'tickets://SHIP-1/history',
      'tickets://projects/SHIP',
      'tickets://projects',
    ]);
    // backlog to todo: the list's open counts stay.
    await move({ key: 'SHIP-2', status: 'todo' });
    await move({ key: 'SHIP-1', status: 'todo' });
    await expect
      .poll(() => [...updates].sort())
      .toEqual(
        heardPerWrite([
          'tickets://SHIP-1',
          'tickets://SHIP-1/history',
          'tickets://projects/SHIP',
          'tickets://projects/SHIP',
        ]).sort(),
      );
    updates.length = 0;
    // Cancelled and reopened: the open counts change.
    await move({ key: 'SHIP-2', status: 'cancelled' });
    await move({ key: 'SHIP-2', status: 'todo' });
    await expect
      .poll(() => [...updates].sort())
      .toEqual(
        heardPerWrite([
          'tickets://projects',
          'tickets://projects',
          'tickets://projects/SHIP',
          'tickets://projects/SHIP',
        ]).sort(),
      );
  });

  it("notifies the parent, the linked tickets and the blocked tickets' projects, which show its status", async () => {
    await setup(3);
    await seedProject(client, 'OPS', 'Operations');
    await seedTicket(client, { project: 'OPS', title: 'Blocked elsewhere' });
    await update({ key: 'SHIP-2', parent: 'SHIP-1' });
    await callOk(client, 'link_tickets', { key: 'SHIP-2', type: 'blocks', target: 'OPS-1' });
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, [
      'tickets://SHIP-1',
      'tickets://OPS-1',
      'tickets://projects/OPS',
      'tickets://SHIP-3',
    ]);
    // One step between open statuses: the parent and the linked ticket show it; the blocked list of OPS,
    // which names open blockers, stays.
    await move({ key: 'SHIP-2', status: 'todo' });
    await expect
      .poll(() => [...updates].sort())
      .toEqual(heardPerWrite(['tickets://OPS-1', 'tickets://SHIP-1']).sort());
    updates.length = 0;
    await move({ key: 'SHIP-2', status: 'cancelled' });
    await expect
      .poll(() => [...updates].sort())
      .toEqual(heardPerWrite(['tickets://OPS-1', 'tickets://SHIP-1', 'tickets://projects/OPS']).sort());
  });

  it('copes with bad input', async () => {
    await setup(1);
    const summary = await checkBadInputs(client, 'transition_ticket', transitionTicket.input, {
      key: 'SHIP-1',
      status: 'todo',
    });
    expect(summary.rejected).toBeGreaterThan(30);
  });
});

describe('read-only mode and annotations', () => {
  it('hides update_ticket and transition_ticket and refuses them with forbidden', async () => {
    const { client: readOnly, sql, closeSql: close } = await connectWithSql({ readOnly: true });
    client = readOnly;
    closeSql = close;
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('get_ticket');
    expect(names).toContain('list_projects');
    expect(names).not.toContain('update_ticket');
    expect(names).not.toContain('transition_ticket');
    for (const [name, args] of [
      ['update_ticket', { key: 'SHIP-1', title: 'x' }],
      ['transition_ticket', { key: 'SHIP-1', status: 'todo' }],
    ] as const) {
      const error = await callError(client, name, args, 'forbidden');
      expect(error.message).toContain('--read-only');
    }
    expect(await sql.all('SELECT * FROM history')).toEqual([]);
  });

  it('declares honest annotations, as a host reads them with the MCP defaults', async () => {
    await setup(0);
    const { tools } = await client.listTools();
    const listed = (name: string) => tools.find((t) => t.name === name)?.annotations;
    const DEFAULTS = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    };
    const hints = (name: string) => ({ ...DEFAULTS, ...listed(name) });
    expect(listed('get_ticket')).toEqual({ readOnlyHint: true, openWorldHint: false });
    // A write tool says outright that it is destructive, for a host that ignores the defaults.
    expect(listed('update_ticket')).toEqual({ destructiveHint: true, openWorldHint: false });
    expect(hints('update_ticket')).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(hints('transition_ticket')).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(hints('delete_ticket')).toEqual({ ...DEFAULTS, idempotentHint: true, openWorldHint: false });
  });
});
