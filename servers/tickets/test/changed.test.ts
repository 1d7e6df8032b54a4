import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TicketsStore } from '../src/store/types.js';
import { openStore } from './helpers.js';

// Each store write names the resources it changed, which its tool passes to ctx.changed as they are.
describe('store writes return the URIs they changed', () => {
  let store: TicketsStore;
  beforeEach(async () => {
    ({ store } = await openStore());
  });
  afterEach(() => store.close());

  const page = (key: string) => [`tickets://${key}`, `tickets://${key}/history`, 'tickets://projects/SHIP'];
  const withLinks = (key: string) => [
    `tickets://${key}`,
    `tickets://${key}/history`,
    `tickets://${key}/links`,
    'tickets://projects/SHIP',
  ];

  it('names the pages each write shows on, and none for a write that changes nothing', async () => {
    expect((await store.createProject({ key: 'SHIP', name: 'Shipyard' })).changed).toEqual([
      'tickets://projects',
      'tickets://projects/SHIP',
    ]);
    expect((await store.createTicket({ project: 'SHIP', title: 'Parent' }, undefined)).changed).toEqual([
      ...page('SHIP-1'),
      'tickets://projects',
    ]);
    expect(
      (
        await store.createTicket(
          { project: 'SHIP', title: 'Child', parent: 'SHIP-1', labels: ['ui'] },
          undefined,
        )
      ).changed,
    ).toEqual([
      ...page('SHIP-2'),
      'tickets://projects',
      'tickets://SHIP-1',
      'tickets://projects/SHIP/labels',
    ]);
    await store.createTicket({ project: 'SHIP', title: 'Other' }, undefined);

    expect(
      (await store.linkTickets({ key: 'SHIP-2', type: 'blocks', target: 'SHIP-3' }, undefined)).changed,
    ).toEqual([...withLinks('SHIP-2'), ...withLinks('SHIP-3')]);
    // An existing link is left alone.
    expect(
      (await store.linkTickets({ key: 'SHIP-3', type: 'blocked_by', target: 'SHIP-2' }, undefined)).changed,
    ).toEqual([]);

    // A new title shows on the parent's page and on the linked ticket's page and links page.
    const retitled = await store.updateTicket({ key: 'SHIP-2', title: 'Renamed child' }, undefined);
    expect(retitled.fields).toEqual(['title']);
    expect(retitled.changed).toEqual([
      ...page('SHIP-2'),
      'tickets://SHIP-1',
      'tickets://SHIP-3',
      'tickets://SHIP-3/links',
    ]);
    expect(await store.updateTicket({ key: 'SHIP-2', title: 'Renamed child' }, undefined)).toMatchObject({
      fields: [],
      changed: [],
    });
    // A new parent: both parents list their children.
    expect(
      (await store.updateTicket({ key: 'SHIP-2', parent: 'SHIP-3', labels: ['api'] }, undefined)).changed,
    ).toEqual([...page('SHIP-2'), 'tickets://SHIP-1', 'tickets://SHIP-3', 'tickets://projects/SHIP/labels']);

    expect((await store.addComment({ key: 'SHIP-1', body: 'Noted' }, undefined)).changed).toEqual([
      'tickets://SHIP-1',
      'tickets://projects/SHIP',
    ]);

    // Closing a labelled ticket that blocks another changes the open counts and the blocked project's page.
    const closed = await store.transitionTicket({ key: 'SHIP-2', status: 'cancelled' }, undefined);
    expect(closed.changed).toEqual(
      expect.arrayContaining([
        ...page('SHIP-2'),
        'tickets://projects',
        'tickets://projects/SHIP/labels',
        'tickets://SHIP-3',
        'tickets://SHIP-3/links',
      ]),
    );
    // Its resolution corrected: its own pages only.
    expect(
      (
        await store.transitionTicket(
          { key: 'SHIP-2', status: 'cancelled', resolution: 'duplicate' },
          undefined,
        )
      ).changed,
    ).toEqual(page('SHIP-2'));

    expect(
      (await store.unlinkTickets({ key: 'SHIP-3', type: 'blocked_by', target: 'SHIP-2' }, undefined)).changed,
    ).toEqual([...withLinks('SHIP-3'), ...withLinks('SHIP-2')]);
  });
});
