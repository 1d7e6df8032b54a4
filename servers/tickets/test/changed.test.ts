import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTicketsDatabase } from '../src/db/open.js';
import { addComment } from '../src/domain/comments.js';
import { linkTickets, unlinkTickets } from '../src/domain/links.js';
import { createProject } from '../src/domain/projects.js';
import { createTicket, transitionTicket, updateTicket } from '../src/domain/tickets.js';
import { migrations } from './helpers.js';

// Each domain write names the resources it changed, which its tool passes to ctx.changed as they are.
describe('domain writes return the URIs they changed', () => {
  let database: ReturnType<typeof openTicketsDatabase>;
  beforeEach(() => {
    database = openTicketsDatabase(':memory:', migrations);
  });
  afterEach(() => database.close());

  const page = (key: string) => [`tickets://${key}`, `tickets://${key}/history`, 'tickets://projects/SHIP'];
  const withLinks = (key: string) => [
    `tickets://${key}`,
    `tickets://${key}/history`,
    `tickets://${key}/links`,
    'tickets://projects/SHIP',
  ];

  it('names the pages each write shows on, and none for a write that changes nothing', () => {
    const { db } = database;
    expect(createProject(db, { key: 'SHIP', name: 'Shipyard' }).changed).toEqual([
      'tickets://projects',
      'tickets://projects/SHIP',
    ]);
    expect(createTicket(db, { project: 'SHIP', title: 'Parent' }).changed).toEqual([
      ...page('SHIP-1'),
      'tickets://projects',
    ]);
    expect(
      createTicket(db, { project: 'SHIP', title: 'Child', parent: 'SHIP-1', labels: ['ui'] }).changed,
    ).toEqual([
      ...page('SHIP-2'),
      'tickets://projects',
      'tickets://SHIP-1',
      'tickets://projects/SHIP/labels',
    ]);
    createTicket(db, { project: 'SHIP', title: 'Other' });

    expect(linkTickets(db, { key: 'SHIP-2', type: 'blocks', target: 'SHIP-3' }).changed).toEqual([
      ...withLinks('SHIP-2'),
      ...withLinks('SHIP-3'),
    ]);
    // An existing link is left alone.
    expect(linkTickets(db, { key: 'SHIP-3', type: 'blocked_by', target: 'SHIP-2' }).changed).toEqual([]);

    // A new title shows on the parent's page and on the linked ticket's page and links page.
    const retitled = updateTicket(db, { key: 'SHIP-2', title: 'Renamed child' });
    expect(retitled.fields).toEqual(['title']);
    expect(retitled.changed).toEqual([
      ...page('SHIP-2'),
      'tickets://SHIP-1',
      'tickets://SHIP-3',
      'tickets://SHIP-3/links',
    ]);
    expect(updateTicket(db, { key: 'SHIP-2', title: 'Renamed child' })).toMatchObject({
      fields: [],
      changed: [],
    });
    // A new parent: both parents list their children.
    expect(updateTicket(db, { key: 'SHIP-2', parent: 'SHIP-3', labels: ['api'] }).changed).toEqual([
      ...page('SHIP-2'),
      'tickets://SHIP-1',
      'tickets://SHIP-3',
      'tickets://projects/SHIP/labels',
    ]);

    expect(addComment(db, { key: 'SHIP-1', body: 'Noted' }).changed).toEqual([
      'tickets://SHIP-1',
      'tickets://projects/SHIP',
    ]);

    // Closing a labelled ticket that blocks another changes the open counts and the blocked project's page.
    const closed = transitionTicket(db, { key: 'SHIP-2', status: 'cancelled' });
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
      transitionTicket(db, { key: 'SHIP-2', status: 'cancelled', resolution: 'duplicate' }).changed,
    ).toEqual(page('SHIP-2'));

    expect(unlinkTickets(db, { key: 'SHIP-3', type: 'blocked_by', target: 'SHIP-2' }).changed).toEqual([
      ...withLinks('SHIP-3'),
      ...withLinks('SHIP-2'),
    ]);
  });
});
