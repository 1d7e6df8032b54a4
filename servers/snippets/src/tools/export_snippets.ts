import { paginationInput, paginationOutput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { FORMATS, toOwn, toVscode } from '../domain/formats.js';
import { findLanguage } from '../domain/languages.js';
import { fieldInputs, idInput, tagsOf } from './shared.js';

/** Characters of code (versions included) a page of export holds at most; past it the page ends early. */
export const EXPORT_PAGE_CHARS = 1_000_000;

export default tool({
  name: 'export_snippets',
  title: 'Export snippets',
  description:
    "Export snippets as a VS Code snippets file (format vscode) or as this server's own JSON (format " +
    'shipyard), which keeps everything, versions and uses included, for import_snippets. Filter by ids, ' +
    'tags or language. Returns the file content for one page (up to limit snippets and about a million ' +
    'characters of code) and next_cursor for the rest. Use this to back up or share snippets.',
  input: {
    format: z.enum(FORMATS).describe('vscode or shipyard'),
    ids: z.array(idInput).max(100).optional().describe('Only these snippets'),
    tags: fieldInputs.tags.optional().describe('Only snippets with all these tags'),
    language: fieldInputs.language.optional().describe('Only this language'),
    ...paginationInput,
  },
  output: {
    content: z.string().describe('The file content (JSON) of this page'),
    count: z.number().int().describe('Snippets in this page'),
    ...paginationOutput,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ format, ids, tags, language, limit, cursor }, ctx) {
    const resolved = language === undefined ? undefined : ((await findLanguage(language)) ?? language);
    const page = await ctx.deps.store.exportRecords(
      { ids, tags: tagsOf(tags), language: resolved },
      { limit, cursor },
      EXPORT_PAGE_CHARS,
    );
    const file = format === 'vscode' ? toVscode(page.items) : toOwn(page.items);
    return {
      content: JSON.stringify(file, null, 2),
      count: page.items.length,
      next_cursor: page.next_cursor,
      total: page.total,
    };
  },
});
