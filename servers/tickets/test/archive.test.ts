import { callError, callOk, checkBadInputs, readText, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import updateProject from '../src/tools/update_project.js';
import { connectTickets, heardPerWrite, seedProject, type TicketsClient, untilWatching } from './helpers.js';

interface Projects {
  count: number;
  projects: { key: string; name: string; open: number; total: number; archived?: boolean }[];
  note?: string;
}
interface Page {
  items: { key: string }[];
  total: number;
}

let client: TicketsClient;
afterEach(async () => client?.close());

/** SHIP and OLD, each with a ticket about a crash. */
async function setup() {
  const connected = await connectTickets();
  client = connected.client;
  await seedProject(client);
  await seedProject(client, 'OLD', 'Legacy app');
  await callOk(client, 'create_ticket', { project: 'SHIP', title: 'Crash on start' });
  await callOk(client, 'create_ticket', { project: 'OLD', title: 'Crash on exit' });
  return connected;
}

const keys = async (args: Record<string, unknown>) =>
  (await callOk<Page>(client, 'search_tickets', args)).items.map((item) => item.key).sort();

describe('update_project', () => {
  it('renames a project and changes its description, writing only what differs', async () => {
    await setup();
    const out = await callOk(client, 'update_project', {
      key: 'old',
      name: 'Legacy desktop app',
      description: 'The app before the rewrite',
    });
    expect(out).toEqual({ key: 'OLD', changed: ['name', 'description'] });
    expect(await callOk(client, 'update_project', { key: 'OLD', name: 'Legacy desktop app' })).toEqual({
      key: 'OLD',
      changed: [],
    });
    const listed = await callOk<Projects>(client, 'list_projects', {});
    expect(listed.projects.find((project) => project.key === 'OLD')?.name).toBe('Legacy desktop app');
  });

  it("refuses another project's name, naming it", async () => {
    await setup();
    const error = await callError(client, 'update_project', { key: 'OLD', name: 'SHIPYARD' }, 'conflict');
    expect(error.message).toBe('Project SHIP already has the name "Shipyard"');
    // Its own name in another case is no clash.
    expect(await callOk(client, 'update_project', { key: 'SHIP', name: 'ShipYard' })).toEqual({
      key: 'SHIP',
      changed: ['name'],
    });
    await callError(client, 'update_project', { key: 'NOPE', archived: true }, 'not_found');
  });

  it('archives a project: it leaves the project list and searches unless they ask for it', async () => {
    await setup();
    expect(await callOk(client, 'update_project', { key: 'OLD', archived: true })).toEqual({
      key: 'OLD',
      changed: ['archived'],
    });
    const listed = await callOk<Projects>(client, 'list_projects', {});
    expect(listed.projects.map((project) => project.key)).toEqual(['SHIP']);
    expect(listed.count).toBe(1);
    expect(listed.note).toBe(
      '1 archived project is left out (list_projects with include_archived lists them)',
    );
    const all = await callOk<Projects>(client, 'list_projects', { include_archived: true });
    expect(all.projects).toEqual([
      expect.objectContaining({ key: 'OLD', archived: true, total: 1 }),
      expect.not.objectContaining({ archived: expect.anything() }),
    ]);
    expect(all.note).toBeUndefined();
    const resource = JSON.parse(await readText(client, 'tickets://projects')) as Projects;
    expect(resource.projects.map((project) => project.key)).toEqual(['SHIP']);

    // Searches with words and without, by default: SHIP's tickets only.
    expect(await keys({ query: 'crash' })).toEqual(['SHIP-1']);
    expect(await keys({})).toEqual(['SHIP-1']);
    expect(await keys({ status: 'backlog', sort: 'created' })).toEqual(['SHIP-1']);
    // Asked for: with include_archived, or by naming the project.
    expect(await keys({ query: 'crash', include_archived: true })).toEqual(['OLD-1', 'SHIP-1']);
    expect(await keys({ include_archived: true })).toEqual(['OLD-1', 'SHIP-1']);
    expect(await keys({ query: 'crash', project: 'OLD' })).toEqual(['OLD-1']);
    // Duplicates are looked for among active projects, unless one is named.
    const similar = (args: Record<string, unknown>) =>
      callOk<{ items: { key: string }[] }>(client, 'find_similar_tickets', {
        title: 'Crash on exit',
        ...args,
      });
    expect((await similar({})).items.map((item) => item.key)).toEqual(['SHIP-1']);
    expect((await similar({ project: 'OLD' })).items.map((item) => item.key)).toEqual(['OLD-1']);

    // Brought back, it is listed and searched again.
    expect(await callOk(client, 'update_project', { key: 'OLD', archived: false })).toEqual({
      key: 'OLD',
      changed: ['archived'],
    });
    expect(await keys({ query: 'crash' })).toEqual(['OLD-1', 'SHIP-1']);
    expect((await callOk<Projects>(client, 'list_projects', {})).count).toBe(2);
  });

  it('tells subscribers of the project list and the project page', async () => {
    await setup();
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates, [
      'tickets://projects',
      'tickets://projects/OLD',
      'tickets://projects/SHIP',
    ]);
    await callOk(client, 'update_project', { key: 'OLD', archived: true });
    // Each as often as a write is heard (on PostgreSQL from the process and from its notice), and no more.
    const archived = heardPerWrite(['tickets://projects', 'tickets://projects/OLD']);
    await expect.poll(() => updates.toSorted()).toEqual(archived.toSorted());
    // A no-op tells no one.
    updates.length = 0;
    await callOk(client, 'update_project', { key: 'OLD', archived: true });
    await callOk(client, 'update_project', { key: 'SHIP', description: 'Ships' });
    const described = heardPerWrite(['tickets://projects', 'tickets://projects/SHIP']);
    await expect.poll(() => updates.toSorted()).toEqual(described.toSorted());
  });

  it('copes with bad input', async () => {
    await setup();
    const summary = await checkBadInputs(client, 'update_project', updateProject.input, { key: 'SHIP' });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});
