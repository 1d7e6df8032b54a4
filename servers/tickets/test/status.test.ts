import { callError, callOk, readText } from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectTickets, seedProject, seedTicket, type TicketsClient } from './helpers.js';

interface Status {
  page: string;
  labels: { label: string; tickets: number; open: number }[];
  label_count: number;
}

let client: TicketsClient;

beforeEach(async () => {
  ({ client } = await connectTickets());
});
afterEach(async () => client.close());

describe('get_project_status', () => {
  it("returns the project's page as its resource shows it, and the labels in use", async () => {
    await seedProject(client);
    await seedTicket(client, { title: 'Outage', priority: 'urgent', labels: ['ops', 'db'] });
    await seedTicket(client, { title: 'Blocked work', labels: ['db'], due_date: '2020-01-01' });
    await seedTicket(client, { title: 'Closed one', labels: ['ops'] });
    await callOk(client, 'link_tickets', { key: 'SHIP-1', type: 'blocks', target: 'SHIP-2' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-3', status: 'cancelled' });

    const status = await callOk<Status>(client, 'get_project_status', { project: 'ship' });
    expect(status.page).toBe(await readText(client, 'tickets://projects/SHIP'));
    expect(status.page).toContain('## Blocked open tickets');
    expect(status.page).toContain('SHIP-2 "Blocked work" (backlog, unassigned) blocked by SHIP-1');
    const labels = JSON.parse(await readText(client, 'tickets://projects/SHIP/labels')) as {
      labels: Status['labels'];
      count: number;
    };
    expect(status.labels).toEqual(labels.labels);
    expect(status.label_count).toBe(labels.count);
    expect(status.labels).toEqual([
      { label: 'db', tickets: 2, open: 2 },
      { label: 'ops', tickets: 2, open: 1 },
    ]);
  });

  it('answers an unknown project as the other tools do, and is offered under --read-only', async () => {
    await seedProject(client);
    const error = await callError(client, 'get_project_status', { project: 'NOPE' }, 'not_found');
    expect(error.hint).toContain('list_projects');
    const readOnly = await connectTickets({ readOnly: true });
    try {
      const names = (await readOnly.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('get_project_status');
    } finally {
      await readOnly.client.close();
    }
  });
});

describe('an empty list says how to fill it', () => {
  const search = (args: Record<string, unknown> = {}) =>
    callOk<{ items: unknown[]; total: number; note?: string }>(client, 'search_tickets', args);

  it('search_tickets: no project, no ticket in the project, nothing matching', async () => {
    expect(await search()).toEqual({
      items: [],
      next_cursor: null,
      total: 0,
      note: 'No projects yet: create_project makes one, then create_ticket adds its tickets',
    });
    await seedProject(client);
    await seedProject(client, 'OPS', 'Operations');
    expect((await search({ query: 'crash' })).note).toBe('No tickets yet: create_ticket adds one');
    await seedTicket(client, { title: 'Crash on save', project: 'OPS' });
    expect((await search({ project: 'SHIP' })).note).toBe('No tickets in SHIP yet: create_ticket adds one');
    expect((await search({ query: 'missing words' })).note).toBe(
      'Nothing matches: drop a filter or a word to widen the search, or create_ticket for new work',
    );
    // Something found: no note.
    expect((await search({ query: 'crash' })).note).toBeUndefined();
  });

  it('find_similar_tickets: nothing like it, so create_ticket', async () => {
    await seedProject(client);
    await seedTicket(client, { title: 'Crash on save' });
    const similar = (args: Record<string, unknown>) =>
      callOk<{ items: unknown[]; note?: string }>(client, 'find_similar_tickets', args);
    expect(await similar({ title: 'Dark mode toggle' })).toEqual({
      items: [],
      note:
        'No similar open tickets: create_ticket adds this one (include_closed also compares done and ' +
        'cancelled ones)',
    });
    expect((await similar({ title: 'Dark mode', project: 'SHIP', include_closed: true })).note).toBe(
      'No similar tickets in SHIP: create_ticket adds this one',
    );
    expect((await similar({ title: 'Crash when saving' })).note).toBeUndefined();
  });
});
