import { callOk, checkBadInputs } from '@shipyard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import listPeople from '../src/tools/list_people.js';
import { connectTickets, seedProject, seedTicket, type TicketOut, type TicketsClient } from './helpers.js';
import { connectWithSql } from './sql.js';

interface Created {
  key: string;
  note?: string;
}
interface People {
  count: number;
  people: { name: string; open: number }[];
}

let client: TicketsClient;
let closeSql: (() => Promise<void>) | undefined;
afterEach(async () => {
  await client?.close();
  await closeSql?.();
  closeSql = undefined;
});

async function setup(options: Parameters<typeof connectTickets>[0] = {}) {
  const connected = await connectWithSql(options);
  client = connected.client;
  closeSql = connected.closeSql;
  await seedProject(client);
  return connected;
}

const ticket = (key: string) => callOk<TicketOut>(client, 'get_ticket', { key, include: [] });

describe('names of people', () => {
  it('match a known person without regard to case, stored as first written, with no note', async () => {
    await setup();
    await seedTicket(client, { title: 'One', assignee: 'Émile' });
    const created = await callOk<Created>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'Two',
      assignee: 'ÉMILE',
      reporter: 'ANA',
    });
    expect(created.note).toBeUndefined();
    // The configured user (ana) is known before anyone has used the name.
    expect(await ticket(created.key)).toMatchObject({ assignee: 'Émile', reporter: 'ana' });
    const updated = await callOk<Created>(client, 'update_ticket', { key: 'SHIP-1', assignee: 'AnA' });
    expect(updated.note).toBeUndefined();
    expect((await ticket('SHIP-1')).assignee).toBe('ana');
  });

  it('accept a name nobody has used, with a note naming the closest known people', async () => {
    await setup();
    await seedTicket(client, { title: 'One', assignee: 'bob' });
    await seedTicket(client, { title: 'Two', assignee: 'anne' });
    const created = await callOk<Created>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'Typo',
      assignee: 'Anna',
    });
    expect(created.note).toBe(
      'assignee "Anna" is a new name: no ticket, comment or configured user has used it; the closest known: ' +
        '"ana", "anne" or "bob". If it is a typo, set assignee again with update_ticket (list_people lists everyone)',
    );
    // Kept as given: the note is a warning, not a refusal.
    expect((await ticket(created.key)).assignee).toBe('Anna');
    // Now it is known: the next use says nothing.
    const again = await callOk<Created>(client, 'update_ticket', { key: 'SHIP-1', assignee: 'anna' });
    expect(again.note).toBeUndefined();
    expect((await ticket('SHIP-1')).assignee).toBe('Anna');
    // update_ticket notes a new name too; none (nobody) and me are no names to check.
    const updated = await callOk<Created>(client, 'update_ticket', { key: 'SHIP-2', assignee: 'Bobb' });
    expect(updated.note).toContain('assignee "Bobb" is a new name');
    expect(updated.note).toContain('the closest known: "bob"');
    for (const assignee of ['none', 'me', null]) {
      expect(
        (await callOk<Created>(client, 'update_ticket', { key: 'SHIP-2', assignee })).note,
      ).toBeUndefined();
    }
  });

  it('say nobody else is known when no one is, without a configured user', async () => {
    await setup({ user: undefined });
    const created = await callOk<Created>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'First',
      assignee: 'ana',
    });
    expect(created.note).toContain('assignee "ana" is a new name');
    expect(created.note).toContain('nobody else is known yet');
    const reported = await callOk<Created>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'Second',
      reporter: 'Anaa',
    });
    expect(reported.note).toBe(
      'reporter "Anaa" is a new name: no ticket, comment or configured user has used it; the closest known: ' +
        '"ana". If it is a typo, delete_ticket and create it again: a reporter stays as created (list_people ' +
        'lists everyone)',
    );
  });

  it('count comment authors as known', async () => {
    const { sql } = await setup({ user: 'carol' });
    await seedTicket(client, { title: 'One' });
    await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: 'hi' });
    // An author no ticket names, written by another process (the triggers keep the people table).
    await sql.run("INSERT INTO comments (ticket_id, author, body) VALUES (1, 'dave', 'x')");
    const created = await callOk<Created>(client, 'create_ticket', {
      project: 'SHIP',
      title: 'Two',
      assignee: 'DAVE',
    });
    expect(created.note).toBeUndefined();
    expect((await ticket(created.key)).assignee).toBe('dave');
  });
});

describe('list_people', () => {
  it('lists every known person by name with their open assigned tickets', async () => {
    await setup();
    await seedTicket(client, { title: 'A', assignee: 'bob' });
    await seedTicket(client, { title: 'B', assignee: 'Bob' });
    await seedTicket(client, { title: 'C', assignee: 'bob' });
    await seedTicket(client, { title: 'D', assignee: 'zoë', reporter: 'yann' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-3', status: 'done' });
    const out = await callOk<People>(client, 'list_people', {});
    expect(out).toEqual({
      count: 4,
      people: [
        { name: 'ana', open: 0 },
        { name: 'bob', open: 2 },
        { name: 'yann', open: 0 },
        { name: 'zoë', open: 1 },
      ],
    });
  });

  it('counts every spelling of a name in older data as one person', async () => {
    const { sql } = await setup({ user: undefined });
    // Written as an older server would, before names were matched: two spellings of one person.
    await sql.run(
      `INSERT INTO tickets (project_id, number, key, title, type, assignee)
         VALUES (1, 1, 'SHIP-1', 'a', 'task', 'ÉLODIE'), (1, 2, 'SHIP-2', 'b', 'task', 'élodie')`,
    );
    const out = await callOk<People>(client, 'list_people', {});
    expect(out.people).toEqual([{ name: expect.stringMatching(/^(ÉLODIE|élodie)$/), open: 2 }]);
  });

  it('is offered under --read-only and copes with bad input', async () => {
    ({ client } = await connectTickets({ readOnly: true }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('list_people');
    const summary = await checkBadInputs(client, 'list_people', listPeople.input, {});
    expect(summary.rejected).toBe(summary.cases - summary.accepted);
    expect(summary.rejected).toBeGreaterThan(0);
  });
});
