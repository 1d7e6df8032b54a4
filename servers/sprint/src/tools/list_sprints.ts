import { paginationInput, paginationOutput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { SPRINT_STATUSES } from '../domain/model.js';
import { SprintSchema, sprintOut } from './shared.js';

export default tool({
  name: 'list_sprints',
  title: 'List sprints',
  description: 'List sprints newest first by team, status. Returns a page. Use this to find a sprint key.',
  input: {
    team: z.string().trim().max(60).optional().describe('Only this team'),
    status: z.enum(SPRINT_STATUSES).optional().describe('Sprint status'),
    ...paginationInput,
  },
  output: { items: z.array(SprintSchema), ...paginationOutput },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const page = await ctx.deps.store.listSprints(
      { team: input.team || undefined, status: input.status && [input.status] },
      input,
    );
    return { ...page, items: page.items.map(sprintOut) };
  },
});
