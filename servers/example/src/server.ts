import { defineServer } from '@shipyard/core';
import { sqliteErrors } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import type { ExampleDeps } from './deps.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import listNotes from './tools/list_notes.js';
import saveNote from './tools/save_note.js';

export type { ExampleDeps } from './deps.js';

export function createExampleServer(deps: ExampleDeps) {
  return defineServer<ExampleDeps>({
    name: 'example',
    version: pkg.version,
    title: 'Shipyard example (notes)',
    instructions:
      'Notes with tags. Find notes with list_notes, read one through the notes://{slug} resource, ' +
      'create or change one with save_note (pass expected_version when updating).',
    deps,
    tools: [saveNote, listNotes],
    resources,
    prompts,
    warmUp: () => deps.warmUp?.(),
    close: () => deps.close?.(),
    mapError: sqliteErrors,
  });
}

export default createExampleServer;
