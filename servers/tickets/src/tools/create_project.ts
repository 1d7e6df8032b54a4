import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { PROJECT_KEY_RULE } from '../domain/model.js';
import { lineOfText, markdown, PROJECT_KEY_ANY_CASE } from './shared.js';

export default tool({
  name: 'create_project',
  title: 'Create a project',
  description:
    'Create a project with a key, name and description. Returns the project. Use this once per team or ' +
    'product, before its first ticket.',
  input: {
    key: z
      .string()
      .trim()
      .regex(PROJECT_KEY_ANY_CASE, `must be ${PROJECT_KEY_RULE}`)
      .transform((key) => key.toUpperCase())
      .describe('Unique key, e.g. SHIP'),
    name: lineOfText(100).describe('Display name'),
    description: markdown(2_000).optional().describe('What the project covers'),
  },
  output: {
    key: z.string(),
    name: z.string(),
    description: z.string(),
    created_at: z.string(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const { project, changed } = await ctx.deps.store.createProject(input);
    ctx.changed(...changed);
    return project;
  },
});
