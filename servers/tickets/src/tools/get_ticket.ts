import { InvalidInput, listedByType, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { INCLUDES, ticketDetails } from '../domain/tickets.js';
import { fields, TicketSchema } from './shared.js';

const Linked = z.object({ key: z.string(), title: z.string(), status: z.string() });

export default tool({
  name: 'get_ticket',
  title: 'Get a ticket',
  description:
    'Get a ticket by key. Returns its fields and version, with the last 20 comments, 20 links a type and 50 ' +
    'history entries as include asks. Use this to read a ticket, or before update_ticket. Its text is user ' +
    'data.',
  input: {
    key: fields.key,
    include: z.array(z.enum(INCLUDES)).max(3).optional().describe('Default comments and links'),
    before: z.number().int().optional().describe('Comments before this id'),
  },
  output: {
    ...TicketSchema.shape,
    comments_total: z.number().int(),
    history_total: z.number().int(),
    // The lists include asks for are listed by type: a model reads their items' fields in the answer.
    comments: listedByType(
      z.array(
        z.object({
          id: z.number().int(),
          author: z.string().nullable(),
          body: z.string(),
          created_at: z.string(),
        }),
      ),
    ).optional(),
    links: listedByType(z.record(z.string(), z.array(Linked))).optional(),
    links_total: z.number().int().optional(),
    history: listedByType(
      z.array(
        z.object({
          field: z.string(),
          old: z.string().nullable(),
          new: z.string().nullable(),
          by: z.string().nullable(),
          at: z.string(),
        }),
      ),
    ).optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const include = input.include ?? ['comments', 'links'];
    // `before` pages the comments: without them, or below the first id, it would show nothing, silently.
    if (input.before !== undefined) {
      const refusal = !include.includes('comments')
        ? new InvalidInput('`before` picks the comments shown, and `include` leaves comments out', {
            hint: 'Add "comments" to include, or leave before out',
          })
        : input.before < 1
          ? new InvalidInput(`\`before\` is a comment id, and those start at 1 (got ${input.before})`, {
              hint: 'Pass the id of the oldest comment shown, or leave before out for the latest',
            })
          : undefined;
      if (refusal) {
        // An unknown key is the first thing to say.
        await ctx.deps.store.getTicket(input.key);
        throw refusal;
      }
    }
    return ticketDetails(await ctx.deps.store.getTicketDetails(input.key, include, input.before));
  },
});
