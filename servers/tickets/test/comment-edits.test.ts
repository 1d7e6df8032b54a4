import { callError, callOk, checkBadInputs, connect, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import deleteTicketComment from '../src/tools/delete_ticket_comment.js';
import updateTicketComment from '../src/tools/update_ticket_comment.js';
import {
  connectTickets,
  heardPerWrite,
  seedProject,
  seedTicket,
  type TicketOut,
  type TicketsClient,
  untilWatching,
} from './helpers.js';

type WithComments = TicketOut & { comments: { id: number; author: string | null; body: string }[] };

const clients: TicketsClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/**
 * SHIP-1 with a comment by ana (id 1, through `ana`, whose --user is ana) and one by bob (id 2, through `bob`,
 * a second client of the same server, as a second host would be).
 */
async function setup() {
  const connected = await connectTickets();
  const ana = connected.client;
  const bob = (await connect(connected.definition, { user: 'bob' })) as TicketsClient;
  clients.push(ana, bob);
  await seedProject(ana);
  await seedTicket(ana, { title: 'Login fails' });
  await callOk(ana, 'add_ticket_comment', { key: 'SHIP-1', body: 'Seen on iOS' });
  await callOk(bob, 'add_ticket_comment', { key: 'SHIP-1', body: 'Not on Android' });
  // Not a spread, which would read `database` (SQLite's only).
  return Object.assign(connected, { ana, bob });
}

const comments = async (client: TicketsClient) =>
  (await callOk<WithComments>(client, 'get_ticket', { key: 'SHIP-1', include: ['comments'] })).comments;

describe('update_ticket_comment', () => {
  it("edits one's own comment; the ticket's updated_at moves, its version does not", async () => {
    const { ana } = await setup();
    const before = await callOk<TicketOut>(ana, 'get_ticket', { key: 'SHIP-1', include: [] });
    const out = await callOk(ana, 'update_ticket_comment', { key: 'ship-1', id: 1, body: 'Seen on iOS 17' });
    expect(out).toEqual({ key: 'SHIP-1', id: 1 });
    expect((await comments(ana)).map((comment) => [comment.author, comment.body])).toEqual([
      ['ana', 'Seen on iOS 17'],
      ['bob', 'Not on Android'],
    ]);
    const after = await callOk<TicketOut>(ana, 'get_ticket', { key: 'SHIP-1', include: [] });
    expect(after.version).toBe(before.version);
    expect(after.updated_at > before.updated_at).toBe(true);
  });

  it("refuses someone else's comment, naming its author, and changes nothing", async () => {
    const { ana, bob } = await setup();
    const error = await callError(
      ana,
      'update_ticket_comment',
      { key: 'SHIP-1', id: 2, body: 'x' },
      'forbidden',
    );
    expect(error.message).toBe('Comment 2 on SHIP-1 is by "bob"; only its author may edit it');
    expect(error.hint).toContain('add_ticket_comment');
    const mine = await callError(
      bob,
      'update_ticket_comment',
      { key: 'SHIP-1', id: 1, body: 'x' },
      'forbidden',
    );
    expect(mine.message).toContain('is by "ana"');
    expect((await comments(ana)).map((comment) => comment.body)).toEqual(['Seen on iOS', 'Not on Android']);
  });

  it('matches the author without regard to case, and finds a comment only on its own ticket', async () => {
    const { definition, ana } = await setup();
    const anaAgain = (await connect(definition, { user: 'ANA' })) as TicketsClient;
    clients.push(anaAgain);
    await callOk(anaAgain, 'update_ticket_comment', { key: 'SHIP-1', id: 1, body: 'Edited' });
    await seedTicket(ana, { title: 'Other' });
    const elsewhere = await callError(
      ana,
      'update_ticket_comment',
      { key: 'SHIP-2', id: 1, body: 'x' },
      'not_found',
    );
    expect(elsewhere.message).toBe('SHIP-2 has no comment 1');
    expect(elsewhere.hint).toContain('get_ticket');
  });

  it('refuses every edit on a server with no configured user', async () => {
    const { definition } = await setup();
    const nobody = (await connect(definition, { user: undefined })) as TicketsClient;
    clients.push(nobody);
    await callOk(nobody, 'add_ticket_comment', { key: 'SHIP-1', body: 'anonymous' });
    const error = await callError(
      nobody,
      'update_ticket_comment',
      { key: 'SHIP-1', id: 3, body: 'x' },
      'forbidden',
    );
    expect(error.message).toContain('this server has no configured user');
    expect(error.hint).toContain('--user');
  });

  it('tells subscribers of the ticket and its project, not its history', async () => {
    const { ana } = await setup();
    const updates = watchResourceUpdates(ana);
    await untilWatching(ana, updates, [
      'tickets://SHIP-1',
      'tickets://SHIP-1/history',
      'tickets://projects/SHIP',
    ]);
    await callOk(ana, 'update_ticket_comment', { key: 'SHIP-1', id: 1, body: 'Edited' });
    await expect
      .poll(() => [...updates].sort())
      .toEqual(heardPerWrite(['tickets://SHIP-1', 'tickets://projects/SHIP']).sort());
  });

  it('copes with bad input', async () => {
    const { ana } = await setup();
    const summary = await checkBadInputs(ana, 'update_ticket_comment', updateTicketComment.input, {
      key: 'SHIP-1',
      id: 1,
      body: 'ok',
    });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('delete_ticket_comment', () => {
  it("deletes one's own comment and refuses someone else's", async () => {
    const { ana } = await setup();
    expect(await callOk(ana, 'delete_ticket_comment', { key: 'SHIP-1', id: 1 })).toEqual({
      key: 'SHIP-1',
      id: 1,
    });
    expect((await comments(ana)).map((comment) => comment.author)).toEqual(['bob']);
    const error = await callError(ana, 'delete_ticket_comment', { key: 'SHIP-1', id: 2 }, 'forbidden');
    expect(error.message).toBe('Comment 2 on SHIP-1 is by "bob"; only its author may delete it');
    const again = await callError(ana, 'delete_ticket_comment', { key: 'SHIP-1', id: 1 }, 'not_found');
    expect(again.message).toBe('SHIP-1 has no comment 1');
    expect((await comments(ana)).length).toBe(1);
  });

  it('tells subscribers of the ticket, and copes with bad input', async () => {
    const { ana } = await setup();
    const updates = watchResourceUpdates(ana);
    await untilWatching(ana, updates, ['tickets://SHIP-1']);
    await callOk(ana, 'delete_ticket_comment', { key: 'SHIP-1', id: 1 });
    await expect.poll(() => [...updates]).toEqual(heardPerWrite(['tickets://SHIP-1']));
    const summary = await checkBadInputs(ana, 'delete_ticket_comment', deleteTicketComment.input, {
      key: 'SHIP-1',
      id: 1,
    });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});
