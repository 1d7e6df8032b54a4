import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { idInput, snippetOutput } from './shared.js';

export default tool({
  name: 'get_snippet',
  title: 'Get a snippet',
  description:
    'Read one snippet by id: its code and metadata, with use counts; with version, the snippet as it was ' +
    'at that version. Returns the snippet, its current version and how many earlier versions are kept. ' +
    'Use this after search_snippets to get the whole code.',
  input: {
    id: idInput,
    version: z.number().int().min(1).optional().describe('An earlier version to read; default the current'),
  },
  output: {
    snippet: snippetOutput.partial({
      worked: true,
      failed: true,
      last_used_at: true,
      created_at: true,
      updated_at: true,
    }),
    current_version: z.number().int(),
    versions_kept: z.number().int().describe('Earlier versions kept'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id, version }, ctx) {
    const found = await ctx.deps.store.getSnippet(id, version);
    return { snippet: found.snippet, current_version: found.current, versions_kept: found.versions };
  },
});
