import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { createTicket } from '../domain/tickets.js';
import { COMMENT_ELSEWHERE, FIELD_ALIASES, fields, resolvePerson } from './shared.js';

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
  output: { key: z.string(), title: z.string(), status: z.string(), version: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  aliases: FIELD_ALIASES,
  elsewhere: {
    comment: `${COMMENT_ELSEWHERE}, once the ticket exists, or put it in description`,
    status: 'A new ticket starts in backlog: move it with transition_ticket once it exists',
    key: "A new ticket's key is its project's next number, given in the answer: pass project",
  },
  handler(input, ctx) {
    const { ticket, changed } = createTicket(
      ctx.deps.db,
      Object.assign({}, input, {
        assignee: input.assignee === undefined ? undefined : resolvePerson(input.assignee, ctx.user),
        reporter: input.reporter === undefined ? undefined : resolvePerson(input.reporter, ctx.user),
      }),
      ctx.user,
    );
    ctx.changed(...changed);
    const { key, title, status, version } = ticket;
    return { key, title, status, version };
  },
});
