import { paginationInput, paginationOutput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { findLanguage } from '../domain/languages.js';
import { SORTS } from '../domain/model.js';
import { fieldInputs, summaryOutput, tagsOf } from './shared.js';

export default tool({
  name: 'search_snippets',
  title: 'Search snippets',
  description:
    'Search the library by words in title, tags, description and code (camelCase and snake_case names ' +
    'are split), with filters for tags (all of them) and language, sorted by relevance, recent or most ' +
    'used. Text is searched as plain words. Returns a page of summaries with the first lines of code and ' +
    'use counts, and total. Use this before saving, and to find code to reuse.',
  input: {
    query: z.string().max(500).optional().describe('Words to find; leave out to list by the filters'),
    tags: fieldInputs.tags.optional().describe('Only snippets with all these tags'),
    language: fieldInputs.language.optional().describe('Only this language (name, alias or extension)'),
    sort: z.enum(SORTS).default('relevance').describe('relevance (default), recent or most_used'),
    ...paginationInput,
  },
  output: {
    items: z.array(summaryOutput),
    ...paginationOutput,
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    // An unknown language matches nothing rather than failing: the list is empty.
    const language =
      input.language === undefined ? undefined : ((await findLanguage(input.language)) ?? input.language);
    return ctx.deps.store.searchSnippets({ ...input, tags: tagsOf(input.tags), language });
  },
});
