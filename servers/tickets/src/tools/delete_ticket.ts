import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields } from './shared.js';

export default tool({
  name: 'delete_ticket',
  title: 'Delete a ticket',
  description:
    'Delete a ticket by key with its comments and history; one with children or links is refused, naming ' +
    'them, unless force. Returns the children left without parent and the links removed. Use this for a ' +
    'ticket made by mistake; close real work instead.',
  input: {
    key: fields.key,
    force: z.boolean().optional().describe('Delete anyway: children lose their parent, links go'),
  },
  output: {
    key: z.string(),
    children: z.array(z.string()),
    links: z.number().int(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { deleted, changed } = await ctx.deps.store.deleteTicket(input, ctx.user);
    ctx.changed(...changed);
    return { key: deleted.key, children: deleted.children, links: deleted.links };
  },
});
