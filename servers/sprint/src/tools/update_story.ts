import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields } from './shared.js';

export default tool({
  name: 'update_story',
  title: 'Update a story',
  description:
    'Update a story by key; omitted fields stay, null clears. Returns changed fields. Use this to edit or ' +
    're-estimate.',
  input: {
    story: fields.story,
    expected_version: fields.expected_version,
    title: fields.title.optional(),
    description: fields.description.optional(),
    acceptance: fields.acceptance.optional(),
    points: fields.points.nullable().optional(),
    priority: fields.priority.optional(),
    assignee: fields.assignee.nullable().optional(),
    ticket_ref: fields.ticket_ref.nullable().optional(),
  },
  output: { version: z.number().int(), changed: z.array(z.string()) },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  aliases: { version: 'expected_version', estimate: 'points', story_points: 'points', key: 'story' },
  async handler(input, ctx) {
    const { story, expected_version, ...patch } = input;
    const ticket_ref =
      typeof patch.ticket_ref === 'string' ? patch.ticket_ref.toUpperCase() : patch.ticket_ref;
    const updated = await ctx.deps.store.updateStory(
      story,
      { ...patch, ticket_ref },
      expected_version,
      actor(ctx),
    );
    ctx.changed(...updated.changed);
    return { version: updated.story.version, changed: updated.fields };
  },
});
