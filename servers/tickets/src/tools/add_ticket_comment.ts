import { listedByType, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields } from './shared.js';

export default tool({
  name: 'add_ticket_comment',
  title: 'Comment on a ticket',
  description:
    'Add a markdown comment to a ticket by key, as the configured user. Returns its id, author and time. ' +
    'Use this to record progress, questions or decisions.',
  input: {
    key: fields.key,
    body: fields.comment.describe('Markdown text'),
  },
  output: {
    key: z.string(),
    // Listed by type: the description names its fields.
    comment: listedByType(
      z.object({
        id: z.number().int(),
        author: z.string().nullable(),
        created_at: z.string(),
      }),
    ),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const { key, comment, changed } = await ctx.deps.store.addComment(input, ctx.user);
    ctx.changed(...changed);
    // Not the body: the caller has it, and it would be the largest part of the answer.
    return { key, comment: { id: comment.id, author: comment.author, created_at: comment.created_at } };
  },
});
