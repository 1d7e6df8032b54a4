import { defineServer } from '@shipyard/core';
import { sqliteErrors } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import type { __Pascal__Deps } from './deps.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import addItem from './tools/add___snake___item.js';

export type { __Pascal__Deps } from './deps.js';

export function create__Pascal__Server(deps: __Pascal__Deps) {
  return defineServer<__Pascal__Deps>({
    name: '__name__',
    version: pkg.version,
    title: 'Shipyard __title__',
    instructions: 'Add items with add___snake___item; read one through its __name__://items/{id} resource.',
    deps,
    tools: [addItem],
    resources,
    prompts,
    warmUp: () => deps.warmUp?.(),
    close: () => deps.close?.(),
    mapError: sqliteErrors,
  });
}

export default create__Pascal__Server;
