import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields } from './shared.js';

export default tool({
  name: 'delete_ticket_comment',
  title: 'Delete a comment',
  description:
    "Delete your own comment (the configured user's) on a ticket by key; others' are refused. Use this for a " +
    'comment posted by mistake; get_ticket gives the ids.',
  input: {
    key: fields.key,
    id: z.number().int().describe('Comment id, from get_ticket'),
  },
  output: { key: z.string(), id: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { key, id, changed } = await ctx.deps.store.deleteComment(input, ctx.user);
    ctx.changed(...changed);
    return { key, id };
  },
});
