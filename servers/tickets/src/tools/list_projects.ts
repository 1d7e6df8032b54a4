import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { LIMITS, projectOverviews } from '../domain/reports.js';

export default tool({
  name: 'list_projects',
  title: 'List projects',
  description:
    'List projects by key, 200 a call. Returns the project count and each key, name, description and ' +
    'open/total ticket counts. Use this to find a project key.',
  input: {
    after: z.string().max(10).optional().describe('Keys after this one (next 200)'),
    include_archived: z.boolean().optional().describe('Also list archived projects'),
  },
  output: {
    count: z.number().int(),
    projects: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        description: z.string(),
        open: z.number().int(),
        total: z.number().int(),
        archived: z.boolean().optional(),
      }),
    ),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const after = input.after?.trim().toUpperCase();
    // Core sends only the output schema's fields: each project's uri is the resource's.
    return projectOverviews(
      await ctx.deps.store.listProjects({
        after,
        includeArchived: input.include_archived,
        limit: LIMITS.projects,
      }),
    );
  },
});
