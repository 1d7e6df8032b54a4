import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields, lineOfText, markdown } from './shared.js';

export default tool({
  name: 'update_project',
  title: 'Update a project',
  description:
    'Rename a project by key, change its description, or archive it. Omitted fields stay. Returns the changed ' +
    'fields. Use this when a project is renamed or done: archived, its tickets leave lists and searches unless ' +
    'asked for.',
  input: {
    key: fields.project,
    name: lineOfText(100).optional().describe('New display name'),
    description: markdown(2_000).optional().describe('New description'),
    archived: z.boolean().optional().describe('true archives it, false restores it'),
  },
  output: {
    key: z.string(),
    changed: z.array(z.string()),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { project, fields: changedFields, changed } = await ctx.deps.store.updateProject(input);
    ctx.changed(...changed);
    return { key: project.key, changed: changedFields };
  },
});
