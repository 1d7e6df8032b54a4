import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { knownNames } from '../domain/people.js';
import { COMMENT_ELSEWHERE, FIELD_ALIASES, fields } from './shared.js';

export default tool({
  name: 'create_ticket',
  title: 'Create a ticket',
  description:
    'Create a ticket in a project. Returns its new key (e.g. SHIP-42), status and version. Use this for new ' +
    'work; call find_similar_tickets first to avoid duplicates.',
  input: {
    project: fields.project,
    title: fields.title,
    description: fields.description.optional(),
    type: fields.type.optional().describe('Default task'),
    priority: fields.priority.optional().describe('Default none'),
    assignee: fields.person.optional(),
    reporter: fields.person.optional().describe('Default: you'),
    labels: fields.labels.optional(),
    estimate: fields.estimate.optional(),
    due_date: fields.due_date.optional(),
    parent: fields.parent.optional(),
  },
  output: {
    key: z.string(),
    title: z.string(),
    status: z.string(),
    version: z.number().int(),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  aliases: FIELD_ALIASES,
  elsewhere: {
    comment: `${COMMENT_ELSEWHERE}, once the ticket exists, or put it in description`,
    status: 'A new ticket starts in backlog: move it with transition_ticket once it exists',
    key: "A new ticket's key is its project's next number, given in the answer: pass project",
  },
  async handler(input, ctx) {
    const { store } = ctx.deps;
    // Names as known in any case; a new one is kept, with a note naming the closest known people.
    const { names, note } = await knownNames(
      () => store.knownNames(),
      { assignee: input.assignee, reporter: input.reporter },
      ctx.user,
    );
    const { ticket, changed } = await store.createTicket(Object.assign({}, input, names), ctx.user);
    ctx.changed(...changed);
    const { key, title, status, version } = ticket;
    return note ? { key, title, status, version, note } : { key, title, status, version };
  },
});
