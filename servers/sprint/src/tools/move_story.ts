import { InvalidInput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields } from './shared.js';

export default tool({
  name: 'move_story',
  title: 'Move a story',
  description:
    'Move a story by key to a sprint or backlog, or before or after another. Returns its place. Use this to ' +
    'plan or re-rank.',
  input: {
    story: fields.story,
    to: z.string().trim().max(20).optional().describe('Sprint key or backlog'),
    before: fields.story.optional().describe('Goes before this'),
    after: fields.story.optional().describe('Goes after this'),
    expected_version: fields.expected_version,
  },
  output: { sprint: z.string().nullable(), version: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  aliases: { key: 'story', sprint: 'to' },
  async handler(input, ctx) {
    if (input.before !== undefined && input.after !== undefined) {
      throw new InvalidInput('Pass before or after, not both', { hint: 'Name one neighbour story' });
    }
    if (input.to === undefined && input.before === undefined && input.after === undefined) {
      throw new InvalidInput('Nothing to do: pass to, before or after', {
        hint: 'e.g. to: "S-3", or before: "ST-7"',
      });
    }
    const to = input.to === undefined ? undefined : input.to.toLowerCase() === 'backlog' ? null : input.to;
    const moved = await ctx.deps.store.moveStory(
      input.story,
      { to, before: input.before, after: input.after },
      input.expected_version,
      actor(ctx),
    );
    ctx.changed(...moved.changed);
    return { sprint: moved.story.sprint, version: moved.story.version };
  },
});
