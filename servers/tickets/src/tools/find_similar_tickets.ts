import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields } from './shared.js';

export default tool({
  name: 'find_similar_tickets',
  title: 'Find similar tickets',
  description:
    'Find likely duplicates of a new ticket from its title and description. Returns open tickets scored ' +
    '0-1, best first. Use this before create_ticket.',
  input: {
    title: fields.title.describe('Title of the new ticket'),
    description: z.string().max(50_000).optional().describe('Its description'),
    project: fields.project.optional().describe('Only in this project'),
    include_closed: z.boolean().optional().describe('Include done/cancelled'),
    limit: z.number().int().min(1).max(20).optional().describe('Most matches, default 5'),
  },
  output: {
    items: z.array(z.object({ key: z.string(), title: z.string(), status: z.string(), score: z.number() })),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(input, ctx) {
    return ctx.deps.store.findSimilarTickets(input);
  },
});
