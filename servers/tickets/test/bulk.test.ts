import { callError, callOk, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectTickets, seedProject, seedTicket, type TicketOut, type TicketsClient } from './helpers.js';
import { connectWithSql, type TestSql } from './sql.js';

interface Result {
  key: string;
  ok: boolean;
  version?: number;
  changed?: string[];
  error?: { code: string; message: string; hint?: string; details?: Record<string, unknown> };
}
interface Answer {
  failed: number;
  results: Result[];
}

let client: TicketsClient;
let sql: TestSql;
let closeSql: () => Promise<void>;

beforeEach(async () => {
  ({ client, sql, closeSql } = await connectWithSql());
  await seedProject(client);
});
afterEach(async () => {
  await client.close();
  await closeSql();
});

const bulk = (items: Record<string, unknown>[]) => callOk<Answer>(client, 'bulk_update_tickets', { items });
const get = (key: string) => callOk<TicketOut>(client, 'get_ticket', { key, include: [] });

describe('bulk_update_tickets', () => {
  it('applies each key on its own: unknown keys, refused moves and stale versions fail alone', async () => {
    for (let i = 1; i <= 4; i++) await seedTicket(client, { title: `Ticket ${i}`, labels: ['old'] });
    await callOk(client, 'update_ticket', { key: 'SHIP-3', title: 'Edited elsewhere' }); // SHIP-3 is at 2
    await callOk(client, 'transition_ticket', { key: 'SHIP-2', status: 'in_progress' }); // SHIP-2 is at 2
    const answer = await bulk([
      { key: 'ship-1', priority: 'high', assignee: 'me', add_labels: ['UI'], remove_labels: ['old'] },
      { key: 'SHIP-99', priority: 'low' },
      // No move back between open statuses; its priority, applied first, is taken back with it.
      { key: 'SHIP-2', priority: 'urgent', status: 'todo' },
      { key: 'SHIP-3', expected_version: 1, priority: 'low' },
      { key: 'SHIP-4', expected_version: 1, status: 'todo', assignee: 'bo' },
    ]);
    expect(answer.failed).toBe(3);
    expect(answer.results.map((r) => [r.key, r.ok, r.error?.code])).toEqual([
      ['SHIP-1', true, undefined],
      ['SHIP-99', false, 'not_found'],
      ['SHIP-2', false, 'invalid_input'],
      ['SHIP-3', false, 'conflict'],
      ['SHIP-4', true, undefined],
    ]);
    expect(answer.results[0]).toEqual({
      key: 'SHIP-1',
      ok: true,
      version: 2,
      changed: ['priority', 'assignee', 'labels'],
    });
    expect(answer.results[1]?.error?.message).toContain('SHIP-99');
    expect(answer.results[2]?.error?.message).toContain('cannot move from in_progress to todo');
    expect(answer.results[3]?.error).toMatchObject({
      message: expect.stringContaining('SHIP-3 is at version 2, not 1'),
      hint: expect.stringContaining('get_ticket'),
      details: { current_version: 2 },
    });
    expect(answer.results[4]).toMatchObject({ ok: true, changed: ['assignee', 'status'] });

    expect(await get('SHIP-1')).toMatchObject({ priority: 'high', assignee: 'ana', labels: ['ui'] });
    expect(await get('SHIP-2')).toMatchObject({ priority: 'none', status: 'in_progress', version: 2 });
    expect(await get('SHIP-3')).toMatchObject({ priority: 'none', version: 2 });
    expect(await get('SHIP-4')).toMatchObject({ status: 'todo', assignee: 'bo' });
  });

  it('closes a ticket as a duplicate: the link, cancelled, resolution duplicate', async () => {
    await seedTicket(client, { title: 'Crash on save' });
    await seedTicket(client, { title: 'Crash when saving' });
    await seedTicket(client, { title: 'Crash saving again' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-3', status: 'cancelled' });
    const answer = await bulk([
      { key: 'SHIP-2', duplicate_of: 'SHIP-1' },
      // Already closed: linked, and its resolution corrected, its status kept.
      { key: 'SHIP-3', duplicate_of: 'SHIP-1', resolution: 'duplicate' },
      // A ticket cannot duplicate itself: refused, nothing else of it applied.
      { key: 'SHIP-1', duplicate_of: 'SHIP-1', priority: 'high' },
    ]);
    expect(answer.results.map((r) => [r.key, r.ok, r.changed])).toEqual([
      ['SHIP-2', true, ['duplicates', 'status', 'resolution']],
      ['SHIP-3', true, ['duplicates', 'resolution']],
      ['SHIP-1', false, undefined],
    ]);
    expect(await get('SHIP-2')).toMatchObject({ status: 'cancelled', resolution: 'duplicate' });
    expect(await get('SHIP-3')).toMatchObject({ status: 'cancelled', resolution: 'duplicate' });
    expect(await get('SHIP-1')).toMatchObject({ priority: 'none' });
    const links = await callOk<{ links: Record<string, { key: string }[]> }>(client, 'get_ticket', {
      key: 'SHIP-1',
      include: ['links'],
    });
    expect(links.links.duplicated_by?.map((t) => t.key)).toEqual(['SHIP-2', 'SHIP-3']);
  });

  it('sent again, a batch changes nothing and fails no key: a ticket already there is left so', async () => {
    await seedTicket(client, { title: 'One' });
    await seedTicket(client, { title: 'Two' });
    const batch = [
      { key: 'SHIP-1', status: 'todo', priority: 'high', add_labels: ['ui'] },
      { key: 'SHIP-2', duplicate_of: 'SHIP-1' },
    ];
    expect((await bulk(batch)).failed).toBe(0);
    const again = await bulk(batch);
    expect(again.results).toEqual([
      { key: 'SHIP-1', ok: true, version: 3, changed: [] },
      { key: 'SHIP-2', ok: true, version: 2, changed: [] },
    ]);
    // transition_ticket alone still says the ticket is already there.
    await callError(client, 'transition_ticket', { key: 'SHIP-1', status: 'todo' }, 'invalid_input');
  });

  it('refuses a key given twice, and a resolution for an open ticket fails that key', async () => {
    await seedTicket(client, { title: 'One' });
    await seedTicket(client, { title: 'Two' });
    const twice = await callError(
      client,
      'bulk_update_tickets',
      { items: [{ key: 'SHIP-1', priority: 'high' }, { key: ' ship-1 ' }] },
      'invalid_input',
    );
    expect(twice.message).toContain('repeated: SHIP-1');
    expect(await get('SHIP-1')).toMatchObject({ priority: 'none' });

    const answer = await bulk([
      { key: 'SHIP-1', resolution: 'fixed' },
      { key: 'SHIP-2', assignee: 'unassigned' },
    ]);
    expect(answer.results[0]?.error?.message).toContain('only to a closed ticket, and SHIP-1 is backlog');
    expect(answer.results[1]?.error?.message).toContain('nobody is written "none"');
    // More than 100 keys is refused before anything runs.
    const many = Array.from({ length: 101 }, (_, i) => ({ key: `SHIP-${i + 1}` }));
    await callError(client, 'bulk_update_tickets', { items: many }, 'invalid_input');
    // `keys` with one shared change is answered with the shape it takes.
    const shape = await callError(
      client,
      'bulk_update_tickets',
      { keys: ['SHIP-1'], change: { priority: 'high' } },
      'invalid_input',
    );
    expect(shape.message + (shape.hint ?? '')).toContain('items [{"key": "SHIP-1"');
  });

  it('tells the subscribers of each changed ticket, and is hidden under --read-only', async () => {
    await seedTicket(client, { title: 'One' });
    await seedTicket(client, { title: 'Two' });
    const updates = watchResourceUpdates(client);
    await client.subscribeResource({ uri: 'tickets://SHIP-1' });
    await client.subscribeResource({ uri: 'tickets://SHIP-2/history' });
    await bulk([
      { key: 'SHIP-1', priority: 'high' },
      { key: 'SHIP-2', status: 'todo' },
    ]);
    await expect
      .poll(() => [...new Set(updates)].sort())
      .toEqual(['tickets://SHIP-1', 'tickets://SHIP-2/history']);

    const readOnly = await connectTickets({ readOnly: true });
    try {
      const names = (await readOnly.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('bulk_update_tickets');
    } finally {
      await readOnly.client.close();
    }
  });

  it('triages 30 new tickets (priority, assignee, labels; 5 closed as duplicates) in at most 3 calls', async () => {
    const areas = ['billing', 'search', 'login', 'export', 'upload'];
    for (let i = 1; i <= 25; i++) {
      await seedTicket(client, { title: `${areas[i % 5]} problem number ${i}`, type: 'bug' });
    }
    // Five reported again, with the titles of five of the first.
    for (let i = 1; i <= 5; i++) await seedTicket(client, { title: `${areas[i % 5]} problem number ${i}` });

    // Count every tool call the triage makes through the client.
    let calls = 0;
    const callTool = client.callTool.bind(client);
    client.callTool = ((...args: Parameters<typeof callTool>) => {
      calls++;
      return callTool(...args);
    }) as typeof client.callTool;

    const found = await callOk<{ items: { key: string; title: string }[]; total: number }>(
      client,
      'search_tickets',
      { project: 'SHIP', status: ['backlog'], sort: 'created', limit: 50 },
    );
    expect(found.total).toBe(30);
    // Oldest first: the first ticket of a title is the original, a later one its duplicate.
    const oldestFirst = found.items.toReversed();
    const original = new Map<string, string>();
    const items = oldestFirst.map((ticket, i) => {
      const first = original.get(ticket.title);
      if (first) return { key: ticket.key, duplicate_of: first };
      original.set(ticket.title, ticket.key);
      const area = ticket.title.split(' ')[0] ?? '';
      return {
        key: ticket.key,
        priority: ['urgent', 'high', 'medium', 'low'][i % 4],
        assignee: ['ana', 'bo', 'chloé'][i % 3],
        add_labels: [area, 'triaged'],
      };
    });
    const answer = await bulk(items);
    expect(calls).toBeLessThanOrEqual(3);
    expect(answer.failed).toBe(0);
    expect(answer.results).toHaveLength(30);
    client.callTool = callTool;

    // Checked in the file: each got its own values, and the five copies are closed and linked.
    const rows = await sql.all<{
      key: string;
      status: string;
      resolution: string | null;
      priority: string;
      assignee: string | null;
      labels: string;
    }>('SELECT key, status, resolution, priority, assignee, labels FROM tickets ORDER BY id');
    expect(rows.filter((r) => r.status === 'cancelled' && r.resolution === 'duplicate')).toHaveLength(5);
    for (const item of items) {
      const row = rows.find((r) => r.key === item.key);
      if ('duplicate_of' in item) continue;
      expect(row).toMatchObject({ priority: item.priority, assignee: item.assignee, status: 'backlog' });
      expect(JSON.parse(row?.labels ?? '[]')).toEqual([...(item.add_labels ?? [])].sort());
    }
    const duplicates = await sql.value("SELECT count(*) FROM links WHERE type = 'duplicates'");
    expect(Number(duplicates)).toBe(5);
  });
});
