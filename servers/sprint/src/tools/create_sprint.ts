import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields } from './shared.js';

export default tool({
  name: 'create_sprint',
  title: 'Create a sprint',
  description: 'Create a planned sprint: name, dates, goal, capacity. Returns its key. Use this to plan.',
  input: {
    team: fields.team,
    name: z
      .string()
      .trim()
      .max(100)
      .refine((name) => name.length > 0, 'must not be empty')
      .describe('Name, e.g. Sprint 12'),
    goal: z.string().trim().max(1000).optional().describe('Sprint goal'),
    start_date: fields.date.describe('First day, YYYY-MM-DD'),
    end_date: fields.date.describe('Last day, YYYY-MM-DD'),
    capacity: fields.points.optional().describe('Team capacity'),
  },
  output: { key: z.string(), version: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const { sprint, changed } = await ctx.deps.store.createSprint(input, actor(ctx));
    ctx.changed(...changed);
    return { key: sprint.key, version: sprint.version };
  },
});
