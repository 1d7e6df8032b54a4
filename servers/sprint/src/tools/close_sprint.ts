import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields, VelocitySchema } from './shared.js';

export default tool({
  name: 'close_sprint',
  title: 'Close a sprint',
  description:
    'Close the active sprint by key; unfinished stories go to backlog or carry_to. Returns figures. Use ' +
    'this when it ends.',
  input: {
    sprint: fields.sprint,
    carry_to: z.string().trim().max(20).optional().describe('Planned sprint for unfinished stories'),
  },
  output: { version: z.number().int(), ...VelocitySchema.shape, carried_stories: z.array(z.string()) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const closed = await ctx.deps.store.closeSprint(input.sprint, input.carry_to ?? null, actor(ctx));
    ctx.changed(...closed.changed);
    return { version: closed.sprint.version, ...closed.velocity, carried_stories: closed.carried };
  },
});
