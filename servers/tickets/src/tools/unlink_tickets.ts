import { tool } from '../deps.js';
import { COMMENT_ELSEWHERE, linkAnswer, linkInput, linkOutput } from './shared.js';

export default tool({
  name: 'unlink_tickets',
  title: 'Unlink tickets',
  description:
    "Remove a link between ticket key and target, spelt from either end. Returns key's remaining links, 20 " +
    'a type. Use this when a link is wrong.',
  input: linkInput,
  output: linkOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  elsewhere: { comment: COMMENT_ELSEWHERE },
  async handler(input, ctx) {
    const result = await ctx.deps.store.unlinkTickets(input, ctx.user);
    ctx.changed(...result.changed);
    return linkAnswer(result);
  },
});
