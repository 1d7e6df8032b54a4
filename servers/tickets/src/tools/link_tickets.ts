import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { COMMENT_ELSEWHERE, linkAnswer, linkInput, linkOutput } from './shared.js';

export default tool({
  name: 'link_tickets',
  title: 'Link tickets',
  description:
    "Link ticket key to target with a type. Returns key's links, 20 a type; created is false if it existed. " +
    'Use this to record dependencies or duplicates; cycles are refused.',
  input: linkInput,
  output: { ...linkOutput, created: z.boolean() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  elsewhere: { comment: COMMENT_ELSEWHERE },
  async handler(input, ctx) {
    const result = await ctx.deps.store.linkTickets(input, ctx.user);
    ctx.changed(...result.changed);
    return Object.assign(linkAnswer(result), { created: result.created });
  },
});
