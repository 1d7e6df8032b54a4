import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { checkFields } from '../domain/model.js';
import { fieldInputs, idInput, languageOf, refuseEmpty, snippetOutput, tagsOf } from './shared.js';

export default tool({
  name: 'update_snippet',
  title: 'Update a snippet',
  description:
    "Change a snippet's title, code, language, description, tags or source, if it is still at " +
    'expected_version. The state before is kept as a version. Returns the snippet at its new version. ' +
    'Use this to fix or improve a snippet; tags replace the old list.',
  input: {
    id: idInput,
    expected_version: z.number().int().min(1).describe('The version you read; refused if it changed since'),
    title: fieldInputs.title.optional(),
    code: fieldInputs.code.optional(),
    language: fieldInputs.language.optional(),
    description: fieldInputs.description.optional(),
    tags: fieldInputs.tags.optional(),
    source: fieldInputs.source.optional(),
  },
  output: {
    snippet: snippetOutput,
    previous_version: z.number().int().describe('The version kept, readable with get_snippet'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler({ id, expected_version, ...set }, ctx) {
    refuseEmpty(set);
    const language =
      set.language === undefined ? undefined : (await languageOf(set.language, '', null)).language;
    const current = (await ctx.deps.store.getSnippet(id)).snippet;
    // The same checks as a save, on the snippet as it will be.
    checkFields({
      title: set.title ?? current.title,
      code: set.code ?? current.code,
      language: language ?? current.language,
      description: set.description ?? current.description,
      tags: set.tags ?? current.tags,
      source: set.source ?? current.source,
    });
    const updated = await ctx.deps.store.updateSnippet(id, expected_version, {
      ...(set.title !== undefined ? { title: set.title.trim() } : {}),
      ...(set.code !== undefined ? { code: set.code } : {}),
      ...(language !== undefined ? { language } : {}),
      ...(set.description !== undefined ? { description: set.description } : {}),
      ...(set.tags !== undefined ? { tags: tagsOf(set.tags) } : {}),
      ...(set.source !== undefined ? { source: set.source || null } : {}),
    });
    ctx.changed(...updated.changed);
    return { snippet: updated.snippet, previous_version: updated.previous };
  },
});
