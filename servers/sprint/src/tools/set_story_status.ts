import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields } from './shared.js';

export default tool({
  name: 'set_story_status',
  title: 'Set story status',
  description: 'Set a story status by key. Returns old and new status. Use this when work on a story moves.',
  input: { story: fields.story, status: fields.status, expected_version: fields.expected_version },
  output: { from: z.string(), status: z.string(), version: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  aliases: { key: 'story', version: 'expected_version' },
  async handler(input, ctx) {
    const set = await ctx.deps.store.setStoryStatus(
      input.story,
      input.status,
      input.expected_version,
      actor(ctx),
    );
    ctx.changed(...set.changed);
    return { from: set.from, status: set.story.status, version: set.story.version };
  },
});
