import { defineServer } from '@shipyard/core';
import { postgresErrors, sqliteErrors } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import type { SnippetsDeps } from './deps.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import deleteSnippet from './tools/delete_snippet.js';
import exportSnippets from './tools/export_snippets.js';
import getSnippet from './tools/get_snippet.js';
import importSnippets from './tools/import_snippets.js';
import listSnippetTags from './tools/list_snippet_tags.js';
import recordSnippetUse from './tools/record_snippet_use.js';
import saveSnippet from './tools/save_snippet.js';
import searchSnippets from './tools/search_snippets.js';
import updateSnippet from './tools/update_snippet.js';

export type { SnippetsDeps } from './deps.js';

export function createSnippetsServer(deps: SnippetsDeps) {
  return defineServer<SnippetsDeps>({
    name: 'snippets',
    version: pkg.version,
    title: 'Shipyard Snippets',
    instructions:
      'A code snippet library. Find code with search_snippets, read it with get_snippet, save new code with ' +
      'save_snippet (search first), and after using a snippet call record_snippet_use: what worked ranks higher.',
    deps,
    tools: [
      saveSnippet,
      getSnippet,
      updateSnippet,
      deleteSnippet,
      searchSnippets,
      listSnippetTags,
      recordSnippetUse,
      importSnippets,
      exportSnippets,
    ],
    resources,
    prompts,
    warmUp: () => deps.store.warmUp(),
    close: () => deps.store.close(),
    watch: (changed, changedAll) => deps.store.watch(changed, changedAll),
    // --database-url: the store is PostgreSQL's (index.ts picks it from the config).
    postgres: true,
    mapError: (error) => sqliteErrors(error) ?? postgresErrors(error),
  });
}

export default createSnippetsServer;
