import { callOk, expectRpcError, watchResourceUpdates } from '@shipyard/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectTickets, seedProject, seedTicket, type TicketsClient } from './helpers.js';

let client: TicketsClient;

beforeEach(async () => {
  ({ client } = await connectTickets());
  await seedProject(client);
  await seedTicket(client, {
    title: 'Checkout down for EU customers',
    type: 'bug',
    priority: 'urgent',
    description: 'Payments failed from 09:10 to 09:55 UTC.',
  });
  await seedTicket(client, { title: 'Payment provider timeouts' });
  await callOk(client, 'update_ticket', { key: 'SHIP-1', assignee: 'bo' });
  for (const status of ['todo', 'in_progress', 'done'] as const) {
    if (status === 'done') await callOk(client, 'transition_ticket', { key: 'SHIP-1', status: 'in_review' });
    await callOk(client, 'transition_ticket', { key: 'SHIP-1', status });
  }
  await callOk(client, 'add_ticket_comment', {
    key: 'SHIP-1',
    body: 'Rolled back the gateway config at 09:50.',
  });
  await callOk(client, 'link_tickets', { key: 'SHIP-1', type: 'relates', target: 'SHIP-2' });
});
afterEach(async () => client.close());

it('incident-review embeds the ticket with its comments, its history and its links, for a closed ticket too', async () => {
  const { messages } = await client.getPrompt({ name: 'incident-review', arguments: { key: 'ship-1' } });
  const text = messages.flatMap((m) => (m.content.type === 'text' ? [m.content.text] : [])).join('\n');
  expect(text).toContain('blameless incident review of ticket SHIP-1.');
  const embedded = messages.flatMap((m) => (m.content.type === 'resource' ? [m.content.resource] : []));
  expect(embedded.map((resource) => resource.uri)).toEqual([
    'tickets://SHIP-1',
    'tickets://SHIP-1/history',
    'tickets://SHIP-1/links',
  ]);
  const [ticket, history, links] = embedded.map((resource) => ('text' in resource ? resource.text : ''));
  // The comments come with the ticket's page, the timeline's changes with the history.
  expect(ticket).toContain('Rolled back the gateway config at 09:50.');
  expect(history).toContain('"in_progress"');
  expect(history).toContain('"bo"');
  expect(links).toContain('SHIP-2');

  // Each tool the flow names is offered.
  const offered = new Set((await client.listTools()).tools.map((tool) => tool.name));
  for (const tool of [
    'get_ticket',
    'search_tickets',
    'add_ticket_comment',
    'create_ticket',
    'link_tickets',
  ]) {
    expect(text).toContain(`\`${tool}\``);
    expect(offered.has(tool), tool).toBe(true);
  }
  // An unknown key is refused before any text is written; read-only runs do not offer it (it writes).
  await expectRpcError(client.getPrompt({ name: 'incident-review', arguments: { key: 'SHIP-9' } }), -32602);
  const readOnly = await connectTickets({ readOnly: true });
  try {
    expect((await readOnly.client.listPrompts()).prompts.map((p) => p.name)).not.toContain('incident-review');
  } finally {
    await readOnly.client.close();
  }
});

it("the review's writes reach the incident ticket's subscribers: the comment, each follow-up's link", async () => {
  const updates = watchResourceUpdates(client);
  await client.subscribeResource({ uri: 'tickets://SHIP-1' });
  await client.subscribeResource({ uri: 'tickets://SHIP-1/links' });
  await client.subscribeResource({ uri: 'tickets://projects/SHIP' });

  await callOk(client, 'add_ticket_comment', { key: 'SHIP-1', body: '## Incident review\n\nTimeline: …' });
  await expect
    .poll(() => [...new Set(updates)].sort())
    .toEqual(['tickets://SHIP-1', 'tickets://projects/SHIP']);

  updates.length = 0;
  const followUp = await callOk<{ key: string }>(client, 'create_ticket', {
    project: 'SHIP',
    title: 'Alert on payment error rate',
    type: 'task',
    priority: 'high',
  });
  await expect.poll(() => [...new Set(updates)]).toEqual(['tickets://projects/SHIP']);

  updates.length = 0;
  await callOk(client, 'link_tickets', { key: followUp.key, type: 'relates', target: 'SHIP-1' });
  await expect
    .poll(() => [...new Set(updates)].sort())
    .toEqual(['tickets://SHIP-1', 'tickets://SHIP-1/links', 'tickets://projects/SHIP']);
});
