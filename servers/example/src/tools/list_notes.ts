import { defineTool, paginationInput, paginationOutput, type ToolContext, z } from '@shipyard/core';
import { listNotes } from '../domain/notes.js';
import type { ExampleDeps } from '../server.js';
import { NoteSummary } from './shared.js';

export default defineTool({
  name: 'list_notes',
  title: 'List notes',
  description:
    'List notes, newest first, optionally filtered by words in the title or body (query) and by tag. ' +
    'Returns note summaries (slug, title, tags, version, updated_at) without bodies, 20 per page, with ' +
    'next_cursor and total. Use this to find a note before reading it or updating it with save_note.',
  input: {
    query: z
      .string()
      .max(200)
      .optional()
      .describe('Words to look for in titles and bodies, matched literally'),
    tag: z.string().max(30).optional().describe('Only notes carrying this tag'),
    ...paginationInput,
  },
  output: { items: z.array(NoteSummary), ...paginationOutput },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(input, ctx: ToolContext<ExampleDeps>) {
    return listNotes(ctx.deps.db, input);
  },
});
