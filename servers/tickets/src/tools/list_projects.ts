import { defineTool, type ToolContext, z } from '@shipyard/core';
import { projectOverviews } from '../domain/reports.js';
import type { TicketsDeps } from '../server.js';

export default defineTool({
  name: 'list_projects',
  title: 'List projects',
  description:
    'List projects by key (200 at most). Returns each key, name, description and open/total ticket counts. ' +
    'Use this to find a project key.',
  input: {},
  output: {
    projects: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        description: z.string(),
        open: z.number().int(),
        total: z.number().int(),
      }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(_input, ctx: ToolContext<TicketsDeps>) {
    const { projects } = projectOverviews(ctx.deps.db);
    return { projects: projects.map(({ tickets, ...project }) => ({ ...project, total: tickets })) };
  },
});
