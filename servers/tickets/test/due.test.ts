import { callError, callOk } from '@shipyard/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectTickets, seedProject, seedTicket, type TicketsClient } from './helpers.js';

interface Page {
  items: { key: string; due_date?: string | null }[];
  total: number;
  next_cursor: string | null;
  note?: string;
}

let client: TicketsClient;

/** A day `days` from today in UTC, as `overdue` counts days. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

beforeEach(async () => {
  ({ client } = await connectTickets());
  await seedProject(client);
  // SHIP-1 overdue, SHIP-2 due today, SHIP-3 tomorrow, SHIP-4 in ten days, SHIP-5 none, SHIP-6 overdue but done.
  for (const [title, due] of [
    ['Late report', day(-1)],
    ['Today report', day(0)],
    ['Tomorrow report', day(1)],
    ['Later report', day(10)],
    ['Someday report', undefined],
    ['Finished report', day(-3)],
  ] as const) {
    await seedTicket(client, { title, ...(due ? { due_date: due } : {}) });
  }
  await callOk(client, 'transition_ticket', { key: 'SHIP-6', status: 'cancelled' });
});
afterEach(async () => client.close());

const search = (args: Record<string, unknown>) =>
  callOk<Page>(client, 'search_tickets', { fields: ['due_date'], ...args });
const keys = (page: Page) => page.items.map((item) => item.key);

it('filters by due date: on or before, on or after, and overdue (open, before today in UTC)', async () => {
  expect(keys(await search({ due_before: day(0), sort: 'due' }))).toEqual(['SHIP-6', 'SHIP-1', 'SHIP-2']);
  expect(keys(await search({ due_after: day(1), sort: 'due' }))).toEqual(['SHIP-3', 'SHIP-4']);
  expect(keys(await search({ due_after: day(0), due_before: day(1), sort: 'due' }))).toEqual([
    'SHIP-2',
    'SHIP-3',
  ]);
  // Overdue leaves out the closed ticket, the one due today and the one without a date.
  expect(keys(await search({ overdue: true }))).toEqual(['SHIP-1']);
  // With words, through the full-text index: the same filters.
  expect(keys(await search({ query: 'report', overdue: true }))).toEqual(['SHIP-1']);
  expect(keys(await search({ query: 'report', due_before: day(0), sort: 'due' }))).toEqual([
    'SHIP-6',
    'SHIP-1',
    'SHIP-2',
  ]);
  // Combined with a status filter that has no open status, overdue finds nothing.
  expect((await search({ overdue: true, status: ['done'] })).total).toBe(0);
});

it('sorts by due date, soonest first and tickets without one last, page by page', async () => {
  const order = ['SHIP-6', 'SHIP-1', 'SHIP-2', 'SHIP-3', 'SHIP-4', 'SHIP-5'];
  expect(keys(await search({ sort: 'due', limit: 50 }))).toEqual(order);
  const seen: string[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await search({ sort: 'due', limit: 2, ...(cursor ? { cursor } : {}) });
    expect(page.total).toBe(6);
    seen.push(...keys(page));
    cursor = page.next_cursor;
  } while (cursor);
  expect(seen).toEqual(order);
  // A new due date moves the ticket where it now sorts.
  await callOk(client, 'update_ticket', { key: 'SHIP-5', due_date: day(-5) });
  expect(keys(await search({ sort: 'due', limit: 1 }))).toEqual(['SHIP-5']);
  // With words: the same order.
  expect(keys(await search({ query: 'report', sort: 'due', limit: 50 }))[0]).toBe('SHIP-5');
});

it('refuses a due filter that is not a day, naming the shape', async () => {
  const error = await callError(client, 'search_tickets', { due_before: '2026-02-30' }, 'invalid_input');
  expect(error.message).toContain('due_before');
  expect(error.message).toContain('real calendar date');
  await callError(client, 'search_tickets', { due_after: 'tomorrow' }, 'invalid_input');
  await callError(client, 'search_tickets', { overdue: 'yes' }, 'invalid_input');
});
