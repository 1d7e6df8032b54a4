import { defineServer } from '@shipyard/core';
import { sqliteErrors } from '@shipyard/db';
import pkg from '../package.json' with { type: 'json' };
import type { PipelinesDeps } from './deps.js';
import { prompts } from './prompts.js';
import { resources } from './resources.js';
import addItem from './tools/add_pipelines_item.js';

export type { PipelinesDeps } from './deps.js';

export function createPipelinesServer(deps: PipelinesDeps) {
  return defineServer<PipelinesDeps>({
    name: 'pipelines',
    version: pkg.version,
    title: 'Shipyard Pipelines',
    instructions: 'Add items with add_pipelines_item; read one through its pipelines://items/{id} resource.',
    deps,
    tools: [addItem],
    resources,
    prompts,
    warmUp: () => deps.warmUp?.(),
    close: () => deps.close?.(),
    mapError: sqliteErrors,
  });
}

export default createPipelinesServer;
