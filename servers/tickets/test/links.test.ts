import { callError, callOk, checkBadInputs, readText, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import linkTickets from '../src/tools/link_tickets.js';
import unlinkTickets from '../src/tools/unlink_tickets.js';
import {
  heardPerWrite,
  reportsPerWrite,
  seedProject,
  seedTicket,
  type TicketsClient,
  untilWatching,
} from './helpers.js';
import { connectWithSql, seedRelatedTickets, type TestSql } from './sql.js';

interface LinkOut {
  created?: boolean;
  links: Partial<Record<'blocks' | 'blocked_by' | 'duplicates' | 'duplicated_by' | 'relates', string[]>>;
}

/** A stamp older than any this test run makes. */
const OLD = '2000-01-01T00:00:00.000Z';

let client: TicketsClient;
let sql: TestSql;
let closeSql: () => Promise<void>;

const link = (key: string, type: string, target: string) =>
  callOk<LinkOut>(client, 'link_tickets', { key, type, target });
const unlink = (key: string, type: string, target: string) =>
  callOk<LinkOut>(client, 'unlink_tickets', { key, type, target });
/** A refused link_tickets / unlink_tickets call: its error body, after checking the code. */
const linkError = (key: string, type: string, target: string, code: Parameters<typeof callError>[3]) =>
  callError(client, 'link_tickets', { key, type, target }, code);
const unlinkError = (key: string, type: string, target: string, code: Parameters<typeof callError>[3]) =>
  callError(client, 'unlink_tickets', { key, type, target }, code);
const rows = () =>
  sql.all('SELECT source_id AS source, type, target_id AS target, created_by AS "by" FROM links ORDER BY id');
/** How many rows a table holds. */
const count = async (table: 'history') => Number(await sql.value(`SELECT count(*) FROM ${table}`));

beforeEach(async () => {
  ({ client, sql, closeSql } = await connectWithSql());
  await seedProject(client);
  for (const title of ['Login page', 'Auth API', 'Session store', 'Docs'])
    await seedTicket(client, { title });
});
afterEach(async () => {
  await client.close();
  await closeSql();
});

describe('link_tickets', () => {
  it('links with blocks and returns the links grouped by direction', async () => {
    const out = await link('SHIP-1', 'blocks', 'SHIP-2');
    expect(out).toEqual({ created: true, links: { blocks: ['SHIP-2'] } });
    expect(await rows()).toEqual([{ source: 1, type: 'blocks', target: 2, by: 'ana' }]);
  });

  it('lists 20 links a type in its answers and in get_ticket, where links_total counts them all', async () => {
    for (let n = 5; n <= 27; n++) await seedTicket(client, { title: `Linked ${n}` });
    for (let n = 2; n <= 24; n++) await link('SHIP-1', 'relates', `SHIP-${n}`);
    await link('SHIP-25', 'blocks', 'SHIP-1');
    const answer = await link('SHIP-1', 'blocks', 'SHIP-26');
    const shown = Array.from({ length: 20 }, (_, i) => `SHIP-${i + 2}`);
    expect(answer.links).toEqual({ blocks: ['SHIP-26'], blocked_by: ['SHIP-25'], relates: shown });
    const ticket = await callOk<{ links: Record<string, { key: string }[]>; links_total: number }>(
      client,
      'get_ticket',
      { key: 'SHIP-1', include: ['links'] },
    );
    expect(ticket.links_total).toBe(25);
    expect(ticket.links.relates?.map((t) => t.key)).toEqual(shown);
    expect(ticket.links.blocked_by).toEqual([{ key: 'SHIP-25', title: 'Linked 25', status: 'backlog' }]);
  });

  it('always shows the link just made in its answer, first when its type has more than 20', async () => {
    for (let n = 5; n <= 27; n++) await seedTicket(client, { title: `Linked ${n}` });
    for (let n = 2; n <= 21; n++) await link('SHIP-1', 'relates', `SHIP-${n}`);
    const answer = await link('SHIP-1', 'relates', 'SHIP-27');
    expect(answer.links.relates).toEqual([
      'SHIP-27',
      ...Array.from({ length: 19 }, (_, i) => `SHIP-${i + 2}`),
    ]);
    // Asked again (created false), it is confirmed the same way.
    expect((await link('SHIP-1', 'relates', 'SHIP-27')).links.relates?.[0]).toBe('SHIP-27');
  });

  it('lists the links of each direction open first, then by key: project key, then number', async () => {
    await seedProject(client, 'ZED', 'Last by key, created first');
    await seedProject(client, 'ABC', 'First by key');
    await seedTicket(client, { project: 'ZED', title: 'Zed one' });
    await seedTicket(client, { project: 'ABC', title: 'Abc one' });
    for (const target of ['SHIP-4', 'ZED-1', 'ABC-1', 'SHIP-2']) await link('SHIP-1', 'relates', target);
    expect((await link('SHIP-1', 'relates', 'SHIP-3')).links.relates).toEqual([
      'ABC-1',
      'SHIP-2',
      'SHIP-3',
      'SHIP-4',
      'ZED-1',
    ]);
    // Closed tickets after the open ones: past 20 a type, the ones still in the way are those shown.
    await callOk(client, 'transition_ticket', { key: 'ABC-1', status: 'cancelled' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-3', status: 'cancelled' });
    expect((await link('SHIP-1', 'relates', 'SHIP-3')).links.relates).toEqual([
      'SHIP-2',
      'SHIP-4',
      'ZED-1',
      'ABC-1',
      'SHIP-3',
    ]);
  });

  it('stores blocked_by as the canonical blocks row, readable from both tickets', async () => {
    const out = await link('SHIP-1', 'blocked_by', 'SHIP-2');
    expect(out.links.blocked_by).toEqual(['SHIP-2']);
    expect(await rows()).toEqual([{ source: 2, type: 'blocks', target: 1, by: 'ana' }]);
    expect(await readText(client, 'tickets://SHIP-2')).toContain('- blocks: SHIP-1 "Login page" (backlog)');
    expect(await readText(client, 'tickets://SHIP-1')).toContain('- blocked_by: SHIP-2 "Auth API" (backlog)');
  });

  it('stores duplicated_by as duplicates from the other side', async () => {
    const out = await link('SHIP-1', 'duplicated_by', 'SHIP-3');
    expect(out.links.duplicated_by).toEqual(['SHIP-3']);
    expect(await rows()).toEqual([{ source: 3, type: 'duplicates', target: 1, by: 'ana' }]);
    expect(await readText(client, 'tickets://SHIP-3')).toContain('- duplicates: SHIP-1');
  });

  it('stores relates once, lower id first, whichever side names it', async () => {
    const out = await link('SHIP-3', 'relates', 'SHIP-1');
    expect(out.links.relates).toEqual(['SHIP-1']);
    expect(await rows()).toEqual([{ source: 1, type: 'relates', target: 3, by: 'ana' }]);
    const again = await link('SHIP-1', 'relates', 'SHIP-3');
    expect(again.created).toBe(false);
    expect(await rows()).toHaveLength(1);
  });

  it('is idempotent: the same link in either spelling answers created false and changes nothing', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-2');
    const historyBefore = await count('history');
    const same = await link('SHIP-1', 'blocks', 'SHIP-2');
    const reverse = await link('SHIP-2', 'blocked_by', 'SHIP-1');
    expect(same.created).toBe(false);
    expect(reverse.created).toBe(false);
    expect(reverse.links.blocked_by).toEqual(['SHIP-1']);
    expect(await rows()).toHaveLength(1);
    expect(await count('history')).toBe(historyBefore);
  });

  it('keeps several link types between the same tickets apart, ordered by key', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-4');
    await link('SHIP-1', 'blocks', 'SHIP-2');
    await link('SHIP-3', 'blocks', 'SHIP-1');
    const out = await link('SHIP-1', 'relates', 'SHIP-2');
    expect(out.links).toEqual({ blocks: ['SHIP-2', 'SHIP-4'], blocked_by: ['SHIP-3'], relates: ['SHIP-2'] });
  });

  it('accepts lower-case keys and answers with canonical ones', async () => {
    const out = await link('ship-1', 'relates', ' ship-2 ');
    expect(out.links).toEqual({ relates: ['SHIP-2'] });
  });

  it('links across projects', async () => {
    await seedProject(client, 'OPS', 'Operations');
    await callOk(client, 'create_ticket', { project: 'OPS', title: 'Deploy' });
    const out = await link('OPS-1', 'blocked_by', 'SHIP-2');
    expect(out.links.blocked_by).toEqual(['SHIP-2']);
    expect(await readText(client, 'tickets://SHIP-2')).toContain('- blocks: OPS-1 "Deploy"');
  });

  it('records history on both tickets and moves updated_at, not version', async () => {
    await link('SHIP-1', 'blocked_by', 'SHIP-2');
    const entries = await sql.all<Record<string, unknown>>(
      "SELECT ticket_id, old_value, new_value, changed_by FROM history WHERE field = 'link' ORDER BY id",
    );
    expect(entries.map((h) => [h.ticket_id, h.old_value, h.new_value, h.changed_by])).toEqual([
      [1, null, 'blocked_by SHIP-2', 'ana'],
      [2, null, 'blocks SHIP-1', 'ana'],
    ]);
    const text = await readText(client, 'tickets://SHIP-2');
    expect(text).toContain('- version: 1');
  });

  it('moves updated_at of both tickets on link and unlink, and of no other, leaving versions', async () => {
    const stamps = () =>
      sql.all<{ id: number; updated: string; version: number }>(
        'SELECT id, updated_at AS updated, version FROM tickets ORDER BY id',
      );
    const backdate = () => sql.run('UPDATE tickets SET updated_at = ?', OLD);
    await backdate();
    await link('SHIP-1', 'blocks', 'SHIP-2');
    const moved = (list: Awaited<ReturnType<typeof stamps>>) =>
      list.filter((t) => t.updated > OLD).map((t) => [t.id, t.version]);
    expect(moved(await stamps())).toEqual([
      [1, 1],
      [2, 1],
    ]);
    await backdate();
    await unlink('SHIP-2', 'blocked_by', 'SHIP-1');
    expect(moved(await stamps())).toEqual([
      [1, 1],
      [2, 1],
    ]);
  });

  it('refuses a self-link, and says there is none to remove', async () => {
    const error = await linkError('SHIP-1', 'relates', 'ship-1', 'invalid_input');
    expect(error.message).toBe('A ticket cannot be linked to itself (SHIP-1)');
    const unlink = await unlinkError('SHIP-1', 'blocks', 'SHIP-1', 'invalid_input');
    expect(unlink.message).toBe(
      'A ticket is never linked to itself (SHIP-1), so there is no such link to remove',
    );
    expect(unlink.hint).toBe('Pass a different target key');
  });

  it('answers not_found for an unknown ticket on either side, invalid_input for a malformed key', async () => {
    const unknownTarget = await linkError('SHIP-1', 'blocks', 'SHIP-99', 'not_found');
    expect(unknownTarget.message).toContain('SHIP-99');
    expect(unknownTarget.hint).toMatch(/search_tickets/);
    // Each error names the argument that was wrong.
    expect(unknownTarget.message).toMatch(/^`target`: /);
    expect((await linkError('NOPE-1', 'blocks', 'SHIP-1', 'not_found')).message).toMatch(/^`key`: /);
    expect((await linkError('SHIP-1', 'blocks', 'not a key', 'invalid_input')).message).toMatch(
      /^`target`: "not a key" is not a ticket key/,
    );
    await linkError('SHIP-1', 'parent_of', 'SHIP-2', 'invalid_input');
    expect(await rows()).toEqual([]);
  });

  it('refuses a two-ticket blocks cycle, in either spelling', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-2');
    const direct = await linkError('SHIP-2', 'blocks', 'SHIP-1', 'invalid_input');
    expect(direct.message).toContain('cycle');
    expect(direct.message).toContain('SHIP-1 blocks SHIP-2 blocks SHIP-1');
    expect(direct.hint).toMatch(/unlink_tickets/);
    const reverse = await linkError('SHIP-1', 'blocked_by', 'SHIP-2', 'invalid_input');
    expect(reverse.message).toContain('SHIP-1 blocks SHIP-2 blocks SHIP-1');
    expect(await rows()).toHaveLength(1);
  });

  it('refuses a three-ticket blocks cycle and names it', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-2');
    await link('SHIP-3', 'blocked_by', 'SHIP-2');
    const error = await linkError('SHIP-3', 'blocks', 'SHIP-1', 'invalid_input');
    expect(error.message).toContain('SHIP-1 blocks SHIP-2 blocks SHIP-3 blocks SHIP-1');
    // A diamond is not a cycle.
    await link('SHIP-1', 'blocks', 'SHIP-3');
    await link('SHIP-4', 'blocked_by', 'SHIP-3');
    await link('SHIP-2', 'blocks', 'SHIP-4');
    expect(await rows()).toHaveLength(5);
  });

  it('refuses a cycle of duplicates too, but not one mixing other types', async () => {
    await link('SHIP-1', 'duplicates', 'SHIP-2');
    const duplicates = await linkError('SHIP-1', 'duplicated_by', 'SHIP-2', 'invalid_input');
    expect(duplicates.message).toContain('SHIP-1 duplicates SHIP-2 duplicates SHIP-1');
    await link('SHIP-2', 'blocks', 'SHIP-1');
    await link('SHIP-2', 'relates', 'SHIP-1');
    expect(await rows()).toHaveLength(3);
  });

  it('notifies subscribers of both tickets', async () => {
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, ['tickets://SHIP-2', 'tickets://SHIP-1/history']);
    await link('SHIP-1', 'blocks', 'SHIP-2');
    await expect
      .poll(() => [...updates].sort())
      .toEqual(heardPerWrite(['tickets://SHIP-1/history', 'tickets://SHIP-2']).sort());
  });

  it("notifies subscribers of both tickets' links pages, and of a linked ticket's when the other's title changes", async () => {
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, [
      'tickets://SHIP-1/links',
      'tickets://ship-2/links',
      'tickets://SHIP-3/links',
    ]);
    /**
     * The links pages notified by `changes`, each once; the last change must notify them, to know all
     * arrived.
     */
    const heard = async (changes: () => Promise<unknown>, last: string[]) => {
      updates.length = 0;
      await changes();
      await expect
        .poll(() => last.every((uri) => updates.filter((update) => update === uri).length >= reportsPerWrite))
        .toBe(true);
      return [...new Set(updates)];
    };
    expect(
      await heard(
        () => link('SHIP-1', 'blocks', 'SHIP-2'),
        ['tickets://SHIP-1/links', 'tickets://ship-2/links'],
      ),
    ).toHaveLength(2);
    expect(
      await heard(
        () => callOk(client, 'update_ticket', { key: 'SHIP-2', title: 'Renamed' }),
        ['tickets://SHIP-1/links'],
      ),
    ).toEqual(['tickets://SHIP-1/links']);
    await heard(
      () => unlink('SHIP-2', 'blocked_by', 'SHIP-1'),
      ['tickets://SHIP-1/links', 'tickets://ship-2/links'],
    );
    // A comment, or an edit of a ticket no longer linked, changes no links page: only the link after them is heard.
    const quiet = await heard(async () => {
      await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: 'no link' });
      await callOk(client, 'update_ticket', { key: 'SHIP-2', title: 'Renamed again' });
      await callOk(client, 'update_ticket', { key: 'SHIP-1', priority: 'high' });
      await link('SHIP-3', 'relates', 'SHIP-1');
    }, ['tickets://SHIP-1/links', 'tickets://SHIP-3/links']);
    expect(quiet.sort()).toEqual(['tickets://SHIP-1/links', 'tickets://SHIP-3/links']);
  });

  it('tells the page of a blocked project when a ticket with hundreds of links changes status', async () => {
    await seedProject(client, 'OPS', 'Operations');
    await seedTicket(client, { project: 'OPS', title: 'Waits' });
    await link('SHIP-1', 'blocks', 'OPS-1');
    await seedRelatedTickets(sql, 500);
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, ['tickets://projects/OPS']);
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'cancelled' });
    await expect.poll(() => updates).toEqual(heardPerWrite(['tickets://projects/OPS']));
  });

  it('copes with bad input', async () => {
    const summary = await checkBadInputs(client, 'link_tickets', linkTickets.input, {
      key: 'SHIP-1',
      type: 'relates',
      target: 'SHIP-2',
    });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('unlink_tickets', () => {
  it('removes a link named from the other side and records history on both tickets', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-2');
    await link('SHIP-1', 'relates', 'SHIP-3');
    const out = await unlink('SHIP-2', 'blocked_by', 'SHIP-1');
    expect(out).toEqual({ links: {} });
    expect(await rows()).toEqual([{ source: 1, type: 'relates', target: 3, by: 'ana' }]);
    const removed = await sql.all<Record<string, unknown>>(
      "SELECT ticket_id, old_value FROM history WHERE field = 'link' AND new_value IS NULL ORDER BY id",
    );
    expect(removed.map((h) => [h.ticket_id, h.old_value])).toEqual([
      [2, 'blocked_by SHIP-1'],
      [1, 'blocks SHIP-2'],
    ]);
    expect(await readText(client, 'tickets://SHIP-1')).not.toContain('blocks: SHIP-2');
  });

  it('removes relates and duplicates in either spelling', async () => {
    await link('SHIP-1', 'relates', 'SHIP-3');
    await link('SHIP-4', 'duplicates', 'SHIP-1');
    await unlink('SHIP-3', 'relates', 'SHIP-1');
    const out = await unlink('SHIP-1', 'duplicated_by', 'SHIP-4');
    expect(out.links).toEqual({});
    expect(await rows()).toEqual([]);
  });

  it('answers not_found for a link that does not exist, or not in that direction', async () => {
    const missing = await unlinkError('SHIP-1', 'blocks', 'SHIP-2', 'not_found');
    expect(missing.message).toContain('SHIP-1 has no blocks link to SHIP-2');
    expect(missing.hint).toBe(
      "SHIP-1 and SHIP-2 are not linked; get_ticket with include links shows a ticket's links",
    );
    await link('SHIP-1', 'blocks', 'SHIP-2');
    // The hint names the link the two tickets do have, as read from key.
    expect((await unlinkError('SHIP-1', 'blocked_by', 'SHIP-2', 'not_found')).hint).toBe(
      'SHIP-1 blocks SHIP-2: call unlink_tickets with type blocks',
    );
    expect((await unlinkError('SHIP-2', 'relates', 'SHIP-1', 'not_found')).hint).toBe(
      'SHIP-2 blocked_by SHIP-1: call unlink_tickets with type blocked_by',
    );
    // Every link the two have is named.
    await link('SHIP-2', 'relates', 'SHIP-1');
    expect((await unlinkError('SHIP-2', 'duplicates', 'SHIP-1', 'not_found')).hint).toBe(
      'SHIP-2 blocked_by SHIP-1; SHIP-2 relates SHIP-1: call unlink_tickets with type blocked_by or relates',
    );
    await unlinkError('SHIP-1', 'blocks', 'SHIP-77', 'not_found');
    await unlinkError('SHIP-1', 'blocks', 'SHIP-1', 'invalid_input');
    expect(await rows()).toHaveLength(2);
  });

  it('a second unlink answers not_found and changes nothing', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-2');
    await unlink('SHIP-1', 'blocks', 'SHIP-2');
    const state = async () => ({
      history: await sql.all('SELECT * FROM history ORDER BY id'),
      tickets: await sql.all('SELECT * FROM tickets ORDER BY id'),
    });
    const before = await state();
    const again = await unlinkError('SHIP-1', 'blocks', 'SHIP-2', 'not_found');
    expect(again.message).toContain('SHIP-1');
    expect(await state()).toEqual(before);
  });

  it('unblocks a cycle: after unlinking, the reverse link is allowed', async () => {
    await link('SHIP-1', 'blocks', 'SHIP-2');
    await unlink('SHIP-1', 'blocks', 'SHIP-2');
    expect((await link('SHIP-2', 'blocks', 'SHIP-1')).created).toBe(true);
  });

  it('copes with bad input', async () => {
    await link('SHIP-1', 'relates', 'SHIP-2');
    const summary = await checkBadInputs(client, 'unlink_tickets', unlinkTickets.input, {
      key: 'SHIP-3',
      type: 'relates',
      target: 'SHIP-4',
    });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('long chains', () => {
  it('finds a cycle through a long chain and names it by its ends', async () => {
    for (let i = 5; i <= 30; i++) await seedTicket(client, { title: `Step ${i}` });
    for (let i = 1; i < 30; i++) await link(`SHIP-${i}`, 'blocks', `SHIP-${i + 1}`);
    const error = await linkError('SHIP-30', 'blocks', 'SHIP-1', 'invalid_input');
    expect(error.message).toContain(
      'SHIP-1 blocks SHIP-2 blocks SHIP-3 blocks SHIP-4 blocks SHIP-5 blocks SHIP-6 blocks …',
    );
    expect(error.message).toContain(
      '… blocks SHIP-27 blocks SHIP-28 blocks SHIP-29 blocks SHIP-30 blocks SHIP-1',
    );
    expect((await link('SHIP-1', 'blocks', 'SHIP-30')).created).toBe(true);
  });

  it('names the shortest cycle when several paths close one', async () => {
    for (let i = 5; i <= 8; i++) await seedTicket(client, { title: `Step ${i}` });
    // 1 -> 2 -> 3 -> 4 -> 5 -> 6, and a shortcut 1 -> 7 -> 6; 8 -> 1 leads in from outside.
    for (const [from, to] of [
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
      [1, 7],
      [7, 6],
      [8, 1],
    ])
      await link(`SHIP-${from}`, 'blocks', `SHIP-${to}`);
    const error = await linkError('SHIP-6', 'blocks', 'SHIP-1', 'invalid_input');
    expect(error.message).toContain('would make a cycle: SHIP-1 blocks SHIP-7 blocks SHIP-6 blocks SHIP-1');
    // Through 8, the cycle runs 8 -> 1 -> 7 -> 6 -> 8.
    const longer = await linkError('SHIP-6', 'blocks', 'SHIP-8', 'invalid_input');
    expect(longer.message).toContain(
      'would make a cycle: SHIP-8 blocks SHIP-1 blocks SHIP-7 blocks SHIP-6 blocks SHIP-8',
    );
  });
});
