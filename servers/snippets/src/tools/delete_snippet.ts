import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { idInput } from './shared.js';

export default tool({
  name: 'delete_snippet',
  title: 'Delete a snippet',
  description:
    'Delete a snippet by id, with all its kept versions and recorded uses; this cannot be undone. ' +
    'Optional expected_version refuses if it changed since you read it. Returns the id, title and how many ' +
    'versions went. Use this only when the user asks to remove a snippet.',
  input: {
    id: idInput,
    expected_version: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('The version you read, to refuse if it changed'),
  },
  output: {
    deleted: z.string().describe('Id of the deleted snippet'),
    title: z.string(),
    versions_deleted: z.number().int(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id, expected_version }, ctx) {
    const gone = await ctx.deps.store.deleteSnippet(id, expected_version);
    ctx.changed(...gone.changed);
    return { deleted: gone.id, title: gone.title, versions_deleted: gone.versions };
  },
});
