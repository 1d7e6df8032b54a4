import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { checkFields, snippetUri } from '../domain/model.js';
import { fieldInputs, guessOutput, languageOf, snippetOutput, tagsOf } from './shared.js';

export default tool({
  name: 'save_snippet',
  title: 'Save a snippet',
  description:
    'Save code to the library with a title, and optional language, description, tags and source. ' +
    'Returns the snippet with its id; if the same code (ignoring line endings and trailing blanks) is ' +
    'already saved, returns that one with duplicate_of instead of a copy. A language left out is guessed ' +
    'and language_guessed_from says how. Use this to keep code worth reusing; search first.',
  input: {
    ...fieldInputs,
    language: fieldInputs.language.optional(),
    description: fieldInputs.description.optional(),
    tags: fieldInputs.tags.optional(),
    source: fieldInputs.source.optional(),
  },
  output: {
    snippet: snippetOutput,
    duplicate_of: z.string().nullable().describe('Id of the snippet that already holds this code'),
    language_guessed_from: guessOutput,
    uri: z.string().describe('Resource with the raw code'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const { language, guess } = await languageOf(input.language, input.code, input.source);
    const fields = checkFields({
      title: input.title,
      code: input.code,
      language,
      description: input.description ?? '',
      tags: tagsOf(input.tags),
      source: input.source || null,
    });
    const saved = await ctx.deps.store.saveSnippet(fields);
    ctx.changed(...saved.changed);
    return {
      snippet: saved.snippet,
      duplicate_of: saved.duplicate ? saved.snippet.id : null,
      language_guessed_from: saved.duplicate ? null : (guess?.from ?? null),
      uri: snippetUri(saved.snippet.id),
    };
  },
});
