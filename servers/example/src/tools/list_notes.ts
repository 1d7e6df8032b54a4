import { paginationInput, paginationOutput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { listNotes } from '../domain/notes.js';
import { NoteSummary } from './shared.js';

export default tool({
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
  handler(input, ctx) {
    return listNotes(ctx.deps.db, input);
  },
});
