import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields } from './shared.js';

export default tool({
  name: 'start_sprint',
  title: 'Start a sprint',
  description:
    'Start a planned sprint by key, recording its commitment. Returns it. Use this when a sprint begins.',
  input: { sprint: fields.sprint, expected_version: fields.expected_version },
  output: { version: z.number().int(), committed_count: z.number().int(), committed_points: z.number() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const started = await ctx.deps.store.startSprint(input.sprint, input.expected_version, actor(ctx));
    ctx.changed(...started.changed);
    return {
      version: started.sprint.version,
      committed_count: started.committed.count,
      committed_points: started.committed.points,
    };
  },
});
