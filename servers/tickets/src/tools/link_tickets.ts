import { defineTool, type ToolContext, z } from '@shipyard/core';
import { LINK_TYPES, type LinkResult, linkTickets, shownLinks } from '../domain/links.js';
import { ticketUris } from '../domain/model.js';
import type { TicketsDeps } from '../server.js';
import { COMMENT_ELSEWHERE, fields } from './shared.js';

/** Input and output shared by link_tickets and unlink_tickets. */
export const linkInput = {
  key: fields.key,
  type: z.enum(LINK_TYPES).describe('How key relates to target'),
  target: z.string().max(24).describe('The other ticket key'),
};

export const linkOutput = {
  /** Keys of the linked tickets by type as read from `key`, LINKS_SHOWN a type; empty types are left out. */
  links: z.record(z.string(), z.array(z.string())),
};

/**
 * The answer of both tools: the links of the source ticket as keys, non-empty types only. A link just made
 * is always among them (first, when its type has more than are shown), so the answer confirms it.
 */
export function linkAnswer(result: LinkResult) {
  const links = shownLinks(result.links, (ticket) => ticket.key);
  const shown = links[result.type];
  const made = result.links[result.type].some((ticket) => ticket.key === result.target);
  if (made && shown && !shown.includes(result.target))
    links[result.type] = [result.target, ...shown.slice(0, -1)];
  return { links };
}

export default defineTool({
  name: 'link_tickets',
  title: 'Link tickets',
  description:
    "Link ticket key to target with a type. Returns key's links, 20 a type; created is false if it existed. " +
    'Use this to record dependencies or duplicates; cycles are refused.',
  input: linkInput,
  output: { ...linkOutput, created: z.boolean() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  elsewhere: { comment: COMMENT_ELSEWHERE },
  handler(input, ctx: ToolContext<TicketsDeps>) {
    const result = linkTickets(ctx.deps.db, input, ctx.user);
    if (result.created)
      ctx.changed(...ticketUris(result.key, { links: true }), ...ticketUris(result.target, { links: true }));
    return Object.assign(linkAnswer(result), { created: result.created });
  },
});
