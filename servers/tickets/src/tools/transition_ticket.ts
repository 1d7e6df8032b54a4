import { defineTool, type ToolContext, z } from '@shipyard/core';
import { labelsUri, opensOrCloses, STATUSES, shownOn, ticketUris } from '../domain/model.js';
import { transitionTicket } from '../domain/tickets.js';
import type { TicketsDeps } from '../server.js';
import { fields, lineOfText } from './shared.js';

export default defineTool({
  name: 'transition_ticket',
  title: 'Change ticket status',
  description:
    'Move a ticket by key one step along the statuses (backlog to done), cancel it, or reopen it to todo. ' +
    'Returns status, resolution and version. Use this to start, finish, cancel or reopen work.',
  input: {
    key: fields.key,
    status: z.enum(STATUSES).describe('The next status'),
    resolution: lineOfText(200).optional().describe('On done/cancelled, e.g. fixed'),
    comment: fields.comment.optional().describe('Comment to add, e.g. why'),
    expected_version: z.number().int().optional().describe('Version you read; stale: conflict'),
  },
  output: {
    key: z.string(),
    status: z.string(),
    resolution: z.string().nullable(),
    version: z.number().int(),
    updated_at: z.string(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  aliases: { version: 'expected_version' },
  handler(input, ctx: ToolContext<TicketsDeps>) {
    const { result, from, labelled } = transitionTicket(ctx.deps.db, input, ctx.user);
    // Its parent and linked tickets show its status; opened or closed, it changes the open counts of the
    // project list and (of its labels) on its project's labels page, and the blocked lists of the projects it
    // blocks. A closed ticket's resolution corrected changes its own pages only.
    const blocking = opensOrCloses(from, result.status);
    ctx.changed(
      ...ticketUris(result.key),
      ...(blocking ? ['tickets://projects'] : []),
      ...(blocking && labelled ? [labelsUri(result.key)] : []),
      ...(from === result.status ? [] : shownOn(ctx.deps.db, result.key, { blocking })),
    );
    return result;
  },
});
