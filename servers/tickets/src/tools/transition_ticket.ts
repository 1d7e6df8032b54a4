import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { STATUSES } from '../domain/model.js';
import { fields, lineOfText } from './shared.js';

export default tool({
  name: 'transition_ticket',
  title: 'Change ticket status',
  description:
    'Move a ticket by key to any later status (in the order listed) or to cancelled, or reopen a closed one ' +
    'to todo or backlog. Returns status, resolution and version. Use this to start, finish, cancel or reopen ' +
    'work.',
  input: {
    key: fields.key,
    status: z.enum(STATUSES).describe('The status to move to'),
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
  async handler(input, ctx) {
    const { result, changed } = await ctx.deps.store.transitionTicket(input, ctx.user);
    ctx.changed(...changed);
    return result;
  },
});
