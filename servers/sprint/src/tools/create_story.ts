import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { actor, fields } from './shared.js';

export default tool({
  name: 'create_story',
  title: 'Create a story',
  description:
    'Create a story at the end of the backlog or a sprint. Returns its key (ST-42). Use this to add work.',
  input: {
    team: fields.team,
    title: fields.title,
    description: fields.description.optional(),
    acceptance: fields.acceptance.optional(),
    points: fields.points.optional(),
    priority: fields.priority.optional(),
    assignee: fields.assignee.optional(),
    ticket_ref: fields.ticket_ref.optional(),
    sprint: fields.sprint.optional().describe('Sprint to add it to'),
  },
  output: { key: z.string(), sprint: z.string().nullable(), version: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const ticket_ref = input.ticket_ref?.toUpperCase();
    const { story, changed } = await ctx.deps.store.createStory({ ...input, ticket_ref }, actor(ctx));
    ctx.changed(...changed);
    return { key: story.key, sprint: story.sprint, version: story.version };
  },
});
