import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields } from './shared.js';

export default tool({
  name: 'update_ticket_comment',
  title: 'Edit a comment',
  description:
    "Replace the text of your own comment (the configured user's) on a ticket by key; others' are refused. " +
    'Use this to correct a comment; get_ticket gives the ids.',
  input: {
    key: fields.key,
    id: z.number().int().describe('Comment id, from get_ticket'),
    body: fields.comment.describe('The new markdown text'),
  },
  output: {
    key: z.string(),
    id: z.number().int(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { key, comment, changed } = await ctx.deps.store.updateComment(input, ctx.user);
    ctx.changed(...changed);
    return { key, id: comment.id };
  },
});
