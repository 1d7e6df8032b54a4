import { callError, callOk, checkBadInputs, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import deleteTicket from '../src/tools/delete_ticket.js';
import {
  connectTickets,
  seedProject,
  seedTicket,
  type TicketOut,
  type TicketsClient,
  untilWatching,
} from './helpers.js';
import { connectWithSql } from './sql.js';

interface Deleted {
  key: string;
  children: string[];
  links: number;
}
type Details = TicketOut & {
  comments_total: number;
  links?: Record<string, { key: string }[]>;
  history?: { field: string; old: string | null; new: string | null; by: string | null }[];
};

let client: TicketsClient;
afterEach(async () => client?.close());

/** SHIP-1 with a child (SHIP-2), blocking SHIP-3 and related to SHIP-4, a comment on it; SHIP-5 alone. */
async function setup() {
  const connected = await connectWithSql();
  client = connected.client;
  onTestFinished(connected.closeSql);
  await seedProject(client);
  await seedTicket(client, { title: 'Parent crash', labels: ['ui'] });
  await seedTicket(client, { title: 'Child', parent: 'SHIP-1' });
  await seedTicket(client, { title: 'Blocked' });
  await seedTicket(client, { title: 'Related' });
  await seedTicket(client, { title: 'Alone' });
  await callOk(client, 'link_tickets', { key: 'SHIP-1', type: 'blocks', target: 'SHIP-3' });
  await callOk(client, 'link_tickets', { key: 'SHIP-4', type: 'relates', target: 'SHIP-1' });
  await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: 'a comment' });
  return connected;
}

const get = (key: string, include: string[] = ['links', 'history']) =>
  callOk<Details>(client, 'get_ticket', { key, include });

describe('delete_ticket', () => {
  it('refuses a ticket with children or links, naming them, and deletes nothing', async () => {
    const { sql } = await setup();
    const error = await callError(client, 'delete_ticket', { key: 'ship-1' }, 'conflict');
    expect(error.message).toBe(
      'SHIP-1 has a child (SHIP-2) and 2 links (blocks SHIP-3 and relates SHIP-4); nothing was deleted',
    );
    expect(error.hint).toContain('force: true');
    expect(error.details).toEqual({
      children: ['SHIP-2'],
      links: [
        { type: 'blocks', key: 'SHIP-3' },
        { type: 'relates', key: 'SHIP-4' },
      ],
    });
    expect((await get('SHIP-1')).comments_total).toBe(1);
    expect(Number(await sql.value('SELECT count(*) FROM links'))).toBe(2);
    // Links alone are enough to refuse.
    await callOk(client, 'update_ticket', { key: 'SHIP-2', parent: null });
    const links = await callError(client, 'delete_ticket', { key: 'SHIP-1', force: false }, 'conflict');
    expect(links.message).toBe('SHIP-1 has 2 links (blocks SHIP-3 and relates SHIP-4); nothing was deleted');
  });

  it('with force deletes it, leaves its children without a parent and removes its links, each in history', async () => {
    const { sql } = await setup();
    const out = await callOk<Deleted>(client, 'delete_ticket', { key: 'SHIP-1', force: true });
    expect(out).toEqual({ key: 'SHIP-1', children: ['SHIP-2'], links: 2 });
    await callError(client, 'get_ticket', { key: 'SHIP-1' }, 'not_found');
    // The child stays, at the top level, its version moved and the change recorded.
    const child = await get('SHIP-2');
    expect(child).toMatchObject({ parent: null, version: 2 });
    expect(child.history?.at(-1)).toMatchObject({ field: 'parent', old: 'SHIP-1', new: null, by: 'ana' });
    // Linked tickets lose the link, and say so from their side.
    for (const [key, seen] of [
      ['SHIP-3', 'blocked_by SHIP-1'],
      ['SHIP-4', 'relates SHIP-1'],
    ] as const) {
      const linked = await get(key);
      expect(linked.links).toEqual({});
      expect(linked.history?.at(-1)).toMatchObject({ field: 'link', old: seen, new: null, by: 'ana' });
    }
    // Its comments and history went with it, its words left the search index, its key is not given again.
    for (const table of ['comments', 'links']) {
      expect(Number(await sql.value(`SELECT count(*) FROM ${table}`)), table).toBe(0);
    }
    expect(Number(await sql.value('SELECT count(*) FROM history WHERE ticket_id = 1'))).toBe(0);
    const found = await callOk<{ total: number }>(client, 'search_tickets', { query: 'crash' });
    expect(found.total).toBe(0);
    expect((await seedTicket(client, { title: 'Next' })).key).toBe('SHIP-6');
  });

  it('deletes a ticket with neither without force; again, it is not found', async () => {
    await setup();
    expect(await callOk<Deleted>(client, 'delete_ticket', { key: 'SHIP-5' })).toEqual({
      key: 'SHIP-5',
      children: [],
      links: 0,
    });
    const again = await callError(client, 'delete_ticket', { key: 'SHIP-5' }, 'not_found');
    expect(again.message).toContain('No ticket SHIP-5');
  });

  it('tells subscribers of the ticket, its project, the project list and the pages that showed it', async () => {
    await setup();
    const updates = watchResourceUpdates(client);
    const watched = [
      'tickets://SHIP-1',
      'tickets://SHIP-1/history',
      'tickets://SHIP-1/links',
      'tickets://SHIP-2',
      'tickets://SHIP-3/links',
      'tickets://SHIP-4',
      'tickets://projects',
      'tickets://projects/SHIP',
      'tickets://projects/SHIP/labels',
    ];
    await untilWatching(client, updates, [...watched, 'tickets://SHIP-5']);
    await callOk(client, 'delete_ticket', { key: 'SHIP-1', force: true });
    await expect.poll(() => [...new Set(updates)].sort()).toEqual(watched.sort());
  });

  it('is not offered under --read-only, and copes with bad input', async () => {
    const readOnly = await connectTickets({ readOnly: true });
    const names = (await readOnly.client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('delete_ticket');
    await readOnly.client.close();
    await setup();
    const summary = await checkBadInputs(client, 'delete_ticket', deleteTicket.input, { key: 'SHIP-5' });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});
