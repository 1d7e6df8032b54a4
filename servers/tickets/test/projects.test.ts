import { callError, callOk, checkBadInputs, readText, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import listProjects from '../src/tools/list_projects.js';
import { connectTickets, seedProject, seedTicket, type TicketsClient } from './helpers.js';
import { connectWithSql } from './sql.js';

interface Listed {
  count: number;
  projects: { key: string; name: string; description: string; open: number; total: number }[];
  note?: string;
}

let client: TicketsClient;
afterEach(async () => client?.close());

describe('create_project', () => {
  it('creates a project and answers it, with no tickets yet', async () => {
    ({ client } = await connectTickets());
    const project = await callOk<Record<string, unknown>>(client, 'create_project', {
      key: 'SHIP',
      name: '  Shipyard  ',
    });
    expect(project).toEqual({
      key: 'SHIP',
      name: 'Shipyard',
      description: '',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it("notifies subscribers of the project list and of the new project's page", async () => {
    ({ client } = await connectTickets());
    const updates = watchResourceUpdates(client);
    await client.subscribeResource({ uri: 'tickets://projects' });
    await client.subscribeResource({ uri: 'tickets://projects/NEW' });
    await callOk(client, 'create_project', { key: 'new', name: 'New' });
    await expect.poll(() => [...updates].sort()).toEqual(['tickets://projects', 'tickets://projects/NEW']);
  });

  it('makes a name one line without control characters, and keeps only those out of the description', async () => {
    ({ client } = await connectTickets());
    const project = await callOk<Record<string, unknown>>(client, 'create_project', {
      key: 'WEB',
      name: 'Web\n site\u0000',
      description: 'Line one\nline two\u001b[31m',
    });
    expect(project).toMatchObject({ name: 'Web site', description: 'Line one\nline two[31m' });
    for (const name of ['\u0000', '\n\u200b'])
      await callError(client, 'create_project', { key: 'API', name }, 'invalid_input');
  });

  it('refuses a key in use with a conflict naming the project, and a key that is not one', async () => {
    ({ client } = await connectTickets());
    await seedProject(client, 'SHIP', 'Shipyard');
    const taken = await callError(client, 'create_project', { key: 'SHIP', name: 'Other' }, 'conflict');
    expect(taken.message).toBe('Project SHIP already exists ("Shipyard")');
    expect(taken.hint).toContain('another key');
    // Keys are upper-cased, so `ship` is SHIP too.
    await callError(client, 'create_project', { key: 'ship', name: 'Lower' }, 'conflict');
    for (const key of ['S', '1SHIP', 'SHIP-1', 'ABCDEFGHIJK']) {
      const bad = await callError(client, 'create_project', { key, name: 'Bad' }, 'invalid_input');
      expect(bad.message).toContain('`key` must be a letter, then 1-9 letters or digits, e.g. SHIP');
    }
    expect((await callOk<Listed>(client, 'list_projects')).projects.map((p) => p.name)).toEqual(['Shipyard']);
  });

  it('refuses a name another project has, in any case or blanks around it, naming that project', async () => {
    ({ client } = await connectTickets());
    await seedProject(client, 'SHIP', 'Ship yard');
    for (const name of ['Ship yard', 'SHIP YARD', ' ship   yard ']) {
      const taken = await callError(client, 'create_project', { key: 'YARD', name }, 'conflict');
      expect(taken.message).toBe('Project SHIP already has the name "Ship yard"');
      expect(taken.hint).toBe('Use SHIP, or choose another name');
    }
    // Names that differ in more than case and blanks are two names: C# and C++, with and without a blank.
    for (const [key, name] of [
      ['YARD', 'Shipyard'],
      ['CS', 'C# SDK'],
      ['CPP', 'C++ SDK'],
    ])
      await callOk(client, 'create_project', { key, name });
    // A name of no letter is compared as it is; invisible characters inside a name do not make it another.
    await callOk(client, 'create_project', { key: 'ROCKET', name: '🚀' });
    await callError(client, 'create_project', { key: 'ROCKET2', name: '🚀' }, 'conflict');
    for (const name of ['Ship\u200b yard', 'Ship yard\u2060', 'Ship\u00ad yard'])
      await callError(client, 'create_project', { key: 'YARD2', name }, 'conflict');
    // A joiner shows (it joins emoji), and full-width letters are other letters: other names.
    await callOk(client, 'create_project', { key: 'TEAM', name: 'Team \u{1F468}\u200d\u{1F469}' });
    await callOk(client, 'create_project', { key: 'TEAM2', name: 'Team \u{1F468}\u{1F469}' });
    await callOk(client, 'create_project', { key: 'WIDE', name: 'Ｓｈｉｐ yard' });
    expect((await callOk<Listed>(client, 'list_projects')).projects.map((p) => p.key)).toEqual([
      'CPP',
      'CS',
      'ROCKET',
      'SHIP',
      'TEAM',
      'TEAM2',
      'WIDE',
      'YARD',
    ]);
  });

  it("answers a project's name given for its key with that key, and other text with what a key is", async () => {
    const connected = await connectWithSql();
    ({ client } = connected);
    onTestFinished(connected.closeSql);
    await seedProject(client, 'SHIP', 'Shipyard');
    await seedProject(client, 'MOB', 'Mobile App');
    const create = await callError(
      client,
      'create_ticket',
      { project: 'Shipyard', title: 'Hi' },
      'not_found',
    );
    expect(create.message).toBe('No project with key "Shipyard"; "Shipyard" is the name of project SHIP');
    expect(create.hint).toBe('Pass the project key, SHIP');
    // A name with a blank, which cannot look like a key, through the search's lookup and the duplicate check.
    for (const [tool, args] of [
      ['search_tickets', { project: 'mobile app' }],
      ['find_similar_tickets', { title: 'Crash', project: 'Mobile App' }],
    ] as const) {
      const error = await callError(client, tool, args, 'not_found');
      expect(error.message).toBe(
        `No project with key "${args.project}"; "Mobile App" is the name of project MOB`,
      );
    }
    // Two projects made with one name before names were kept apart: both named.
    await connected.sql.run(
      "INSERT INTO projects (key, name, created_at) VALUES ('MOB2', 'mobile app', '2025-01-01T00:00:00Z')",
    );
    await connected.sql.run(
      "INSERT INTO projects (key, name, created_at) VALUES ('AAA', 'MOBILE APP', '2025-01-01T00:00:00Z')",
    );
    const twins = await callError(client, 'search_tickets', { project: 'Mobile App' }, 'not_found');
    expect(twins.message).toBe(
      'No project with key "Mobile App"; "MOBILE APP" is the name of projects AAA, MOB and MOB2',
    );
    expect(twins.hint).toBe('Pass one of the project keys: AAA, MOB, MOB2');
    // And a new project of that name is refused naming them all.
    const again = await callError(client, 'create_project', { key: 'MOB3', name: 'Mobile app' }, 'conflict');
    expect(again.message).toBe('Projects AAA, MOB and MOB2 already have the name "MOBILE APP"');
    expect(again.hint).toBe('Use AAA, MOB or MOB2, or choose another name');
    // Neither a key nor a name: the list of keys, and for text that cannot be a key, what a key is.
    const neither = await callError(client, 'create_ticket', { project: 'NOPE', title: 'Hi' }, 'not_found');
    expect(neither.message).toBe('No project with key "NOPE"');
    expect(neither.hint).toContain('list_projects');
    const shape = await callError(
      client,
      'create_ticket',
      { project: 'SHIP_X', title: 'Hi' },
      'invalid_input',
    );
    expect(shape.message).toBe(
      'No project with key "SHIP_X": a key is a letter, then 1-9 letters or digits, e.g. SHIP',
    );
    // Too short for a key: what a key is, from every tool that takes a project; blank: that it is blank.
    for (const [tool, args] of [
      ['create_ticket', { project: 'S', title: 'Hi' }],
      ['search_tickets', { project: 's' }],
      ['update_project', { key: 'S', name: 'Hi' }],
    ] as const) {
      const short = await callError(client, tool, args, 'invalid_input');
      expect(short.message).toMatch(
        /^No project with key "[Ss]": a key is a letter, then 1-9 letters or digits/,
      );
    }
    const blank = await callError(
      client,
      'find_similar_tickets',
      { title: 'Hi', project: ' ' },
      'invalid_input',
    );
    expect(blank.message).toContain('`project` must not be empty or blank');
    // A ticket key names its project.
    const ticket = await callError(
      client,
      'create_ticket',
      { project: 'ship-1', title: 'Hi' },
      'invalid_input',
    );
    expect(ticket.message).toBe('"ship-1" is a ticket key; its project is SHIP');
    expect(ticket.hint).toBe('Pass the project key, SHIP');
  });

  it('takes project keys in any case and stores them upper-case', async () => {
    ({ client } = await connectTickets());
    expect(
      (await callOk<{ key: string }>(client, 'create_project', { key: 'web', name: 'Website' })).key,
    ).toBe('WEB');
    expect(
      (await callOk<{ key: string }>(client, 'create_ticket', { project: 'wEb', title: 'Hi' })).key,
    ).toBe('WEB-1');
    const found = await callOk<{ items: { key: string }[] }>(client, 'search_tickets', { project: 'web' });
    expect(found.items.map((t) => t.key)).toEqual(['WEB-1']);
    const bad = await callError(client, 'create_ticket', { project: 'w-1', title: 'Hi' }, 'invalid_input');
    expect(bad.message).toContain('e.g. SHIP');
  });
});

describe('list_projects', () => {
  it('answers an empty list before any project exists, saying to create one', async () => {
    ({ client } = await connectTickets());
    expect(await callOk<Listed>(client, 'list_projects')).toEqual({
      count: 0,
      projects: [],
      note: 'No projects yet: call create_project with a key (e.g. SHIP) and a name, then create_ticket adds its tickets',
    });
    // The project list resource says it too; once there is a project, neither does.
    const page = JSON.parse(await readText(client, 'tickets://projects')) as { note?: string };
    expect(page.note).toContain('call create_project');
    await seedProject(client);
    expect((await callOk<Listed>(client, 'list_projects')).note).toBeUndefined();
  });

  it('lists every project by key with open and total ticket counts', async () => {
    ({ client } = await connectTickets());
    await callOk(client, 'create_project', {
      key: 'WEB',
      name: 'Website',
      description: 'The marketing site',
    });
    await seedProject(client, 'SHIP', 'Shipyard');
    await seedProject(client, 'API', 'Public API');
    for (let i = 1; i <= 4; i++) await seedTicket(client, { title: `Ship ${i}` });
    await seedTicket(client, { project: 'WEB', title: 'Hero image' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'cancelled' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-2', status: 'todo' });
    for (const status of ['in_progress', 'in_review', 'done']) {
      await callOk(client, 'transition_ticket', { key: 'SHIP-2', status });
    }
    await callOk(client, 'transition_ticket', { key: 'SHIP-3', status: 'todo' });

    const { count, projects } = await callOk<Listed>(client, 'list_projects');
    expect(count).toBe(3);
    expect(projects).toEqual([
      { key: 'API', name: 'Public API', description: '', open: 0, total: 0 },
      { key: 'SHIP', name: 'Shipyard', description: '', open: 2, total: 4 },
      { key: 'WEB', name: 'Website', description: 'The marketing site', open: 1, total: 1 },
    ]);

    // Reopening counts the ticket as open again.
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'todo' });
    const again = await callOk<Listed>(client, 'list_projects');
    expect(again.projects.find((p) => p.key === 'SHIP')).toMatchObject({ open: 3, total: 4 });
  });

  it('is available in read-only mode, listed read-only (which implies no effect to repeat)', async () => {
    ({ client } = await connectTickets({ readOnly: true }));
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'list_projects');
    expect(tool?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(await callOk<Listed>(client, 'list_projects')).toMatchObject({ count: 0, projects: [] });
  });

  it('lists 200 a call with the count, and the next 200 after the last key', async () => {
    ({ client } = await connectTickets());
    const keys = Array.from({ length: 205 }, (_, i) => `P${String(i).padStart(3, '0')}`);
    for (const key of keys) await seedProject(client, key, `Project ${key}`);
    const first = await callOk<Listed>(client, 'list_projects');
    expect(first.count).toBe(205);
    expect(first.projects.map((p) => p.key)).toEqual(keys.slice(0, 200));
    expect(first.note).toBe(
      'Showing 200 of 205 projects by key; list_projects with `after` lists the ones after the last',
    );
    // Any case and blanks, as project keys go elsewhere. The last page says nothing of more.
    const rest = await callOk<Listed>(client, 'list_projects', { after: ' p199 ' });
    expect(rest).toMatchObject({ count: 205 });
    expect(rest.projects.map((p) => p.key)).toEqual(keys.slice(200));
    expect(rest.note).toBeUndefined();
    // A page of exactly 200 with none after it says nothing either.
    expect((await callOk<Listed>(client, 'list_projects', { after: 'P004' })).note).toBeUndefined();
    const { contents } = await client.readResource({ uri: 'tickets://projects' });
    const page = JSON.parse((contents[0] as { text: string }).text) as { count: number; note: string };
    expect(page.count).toBe(205);
    expect(page.note).toContain('list_projects with `after`');
  });

  it('copes with bad input', async () => {
    ({ client } = await connectTickets());
    const summary = await checkBadInputs(client, 'list_projects', listProjects.input, {});
    // Wrong types, 1 MB and an unknown key are refused; odd strings for `after` are just keys to list after.
    expect(summary).toEqual({ cases: 28, rejected: 20, accepted: 8 });
  });
});
