import { z } from '@shipyard/core';
import { tool } from '../deps.js';

const counted = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int().describe('How many there are in all') });

export default tool({
  name: 'list_snippet_tags',
  title: 'List snippet tags and languages',
  description:
    'List the tags and languages of the library with how many snippets have each, most used first, up ' +
    'to limit of each. Returns both lists with their totals. Use this to pick filters for search_snippets ' +
    'or tags for a new snippet.',
  input: {
    limit: z.number().int().min(1).max(500).optional().describe('Most of each list to return (default 100)'),
  },
  output: {
    tags: counted(z.object({ tag: z.string(), count: z.number().int() })),
    languages: counted(z.object({ language: z.string(), count: z.number().int() })),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ limit }, ctx) => ctx.deps.store.listTags(limit ?? 100),
});
