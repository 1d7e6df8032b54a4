import { defineTool, type ToolContext } from '@shipyard/core';
import { unlinkTickets } from '../domain/links.js';
import { ticketUris } from '../domain/model.js';
import type { TicketsDeps } from '../server.js';
import { linkAnswer, linkInput, linkOutput } from './link_tickets.js';
import { COMMENT_ELSEWHERE } from './shared.js';

export default defineTool({
  name: 'unlink_tickets',
  title: 'Unlink tickets',
  description:
    "Remove a link between ticket key and target, spelt from either end. Returns key's remaining links, 20 " +
    'a type. Use this when a link is wrong.',
  input: linkInput,
  output: linkOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  elsewhere: { comment: COMMENT_ELSEWHERE },
  handler(input, ctx: ToolContext<TicketsDeps>) {
    const result = unlinkTickets(ctx.deps.db, input, ctx.user);
    ctx.changed(...ticketUris(result.key, { links: true }), ...ticketUris(result.target, { links: true }));
    return linkAnswer(result);
  },
});
