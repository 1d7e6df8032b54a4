import { paginationInput, paginationOutput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields, StorySummarySchema, storySummary } from './shared.js';

export default tool({
  name: 'get_backlog',
  title: 'Backlog',
  description:
    'Get a team backlog in rank order, with filters. Returns a page of stories. Use this to plan or pick work.',
  input: {
    team: fields.team,
    status: fields.status.optional(),
    priority: fields.priority.optional(),
    assignee: fields.assignee.optional(),
    ...paginationInput,
  },
  output: { items: z.array(StorySummarySchema), ...paginationOutput },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { limit, cursor, ...filter } = input;
    const page = await ctx.deps.store.getBacklog(
      { ...filter, status: filter.status && [filter.status], priority: filter.priority && [filter.priority] },
      { limit, cursor },
    );
    return { ...page, items: page.items.map(storySummary) };
  },
});
