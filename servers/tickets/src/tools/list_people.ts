import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { peopleList } from '../domain/people.js';

export default tool({
  name: 'list_people',
  title: 'List people',
  description:
    'List the known people: names tickets and comments use, and the configured user. Returns each name (500 ' +
    'at most) with its open assigned tickets. Use this before assigning someone.',
  input: {},
  output: {
    count: z.number().int(),
    people: z.array(z.object({ name: z.string(), open: z.number().int() })),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return peopleList(await ctx.deps.store.listPeople(), ctx.user);
  },
});
