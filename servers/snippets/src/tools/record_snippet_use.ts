import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { MAX_NOTE_CHARS, OUTCOMES } from '../domain/model.js';
import { idInput } from './shared.js';

export default tool({
  name: 'record_snippet_use',
  title: 'Record a use of a snippet',
  description:
    'Record that a snippet was used and whether it worked or failed, with an optional note. Counts show ' +
    "in results and rank snippets that worked higher. Returns the snippet's counts. Use this after " +
    'applying a snippet, once you know the outcome.',
  input: {
    id: idInput,
    outcome: z.enum(OUTCOMES).describe('worked or failed'),
    note: z.string().max(MAX_NOTE_CHARS).optional().describe('What happened, e.g. the error'),
  },
  output: {
    id: z.string(),
    worked: z.number().int(),
    failed: z.number().int(),
    last_used_at: z.string().nullable(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler({ id, outcome, note }, ctx) {
    const { snippet, changed } = await ctx.deps.store.recordUse(id, outcome, note ?? '');
    ctx.changed(...changed);
    return {
      id: snippet.id,
      worked: snippet.worked,
      failed: snippet.failed,
      last_used_at: snippet.last_used_at,
    };
  },
});
