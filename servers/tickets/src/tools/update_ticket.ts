import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { knownNames } from '../domain/people.js';
import { COMMENT_ELSEWHERE, FIELD_ALIASES, fields } from './shared.js';

export default tool({
  name: 'update_ticket',
  title: 'Update a ticket',
  description:
    'Update fields of a ticket by key; omitted fields stay, null clears. Returns the new version and the ' +
    'changed fields. Use this to edit a ticket (status: transition_ticket); pass expected_version.',
  input: {
    key: fields.key,
    expected_version: z.number().int().optional().describe('Version you read; stale: conflict'),
    title: fields.title.optional(),
    description: fields.description.nullable().optional(),
    type: fields.type.optional().describe('New ticket type'),
    priority: fields.priority.optional().describe('New priority'),
    assignee: fields.person.nullable().optional(),
    labels: fields.labels.nullable().optional().describe('Replace all labels'),
    estimate: fields.estimate.nullable().optional(),
    due_date: fields.due_date.nullable().optional(),
    parent: fields.parent.nullable().optional(),
  },
  output: {
    key: z.string(),
    version: z.number().int(),
    updated_at: z.string(),
    changed: z.array(z.string()),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // get_ticket answers with `version`, which a model may pass back under that name.
  aliases: { ...FIELD_ALIASES, version: 'expected_version' },
  elsewhere: {
    comment: COMMENT_ELSEWHERE,
    reporter: 'A ticket keeps the reporter it was created with',
    project:
      'A ticket stays in its project: to move the work, create a ticket in the other project and link the ' +
      'two (link_tickets, relates)',
    resolution:
      'transition_ticket sets the resolution: as it closes the ticket, or on a closed one, given its status ' +
      'again with the new resolution',
  },
  async handler(input, ctx) {
    const { store } = ctx.deps;
    // A name as known in any case; a new one is kept, with a note naming the closest known people.
    const { names, note } = await knownNames(
      () => store.knownNames(),
      { assignee: input.assignee },
      ctx.user,
    );
    const assignee = names.assignee;
    // null clears: no description, no labels.
    const description = input.description === null ? '' : input.description;
    const labels = input.labels === null ? [] : input.labels;
    const { ticket, fields, changed } = await store.updateTicket(
      Object.assign({}, input, { assignee, description, labels }),
      ctx.user,
    );
    ctx.changed(...changed);
    const answer = {
      key: ticket.key,
      version: ticket.version,
      updated_at: ticket.updated_at,
      changed: fields,
    };
    return note ? Object.assign(answer, { note }) : answer;
  },
});
