import {
  definePrompt,
  defineResource,
  defineTool,
  type PromptDefinition,
  type ResourceDefinition,
  type Shape,
  type ToolDefinition,
} from './define.js';

/** defineTool, defineResource and definePrompt with the server's deps type fixed. */
export interface Definers<Deps> {
  tool: <I extends Shape, O extends Shape>(
    definition: ToolDefinition<I, O, Deps>,
  ) => ToolDefinition<I, O, Deps>;
  resource: (definition: ResourceDefinition<Deps>) => ResourceDefinition<Deps>;
  prompt: (definition: PromptDefinition<Deps>) => PromptDefinition<Deps>;
}

/**
 * The define helpers of one server: `export const { tool, resource, prompt } = defineFor<MyDeps>()` in the
 * server's `src/deps.ts`, beside the deps type. Its tools, resources and prompts then get `ctx.deps` typed
 * without annotating `ctx`, and without importing from server.ts, which imports them.
 */
export function defineFor<Deps>(): Definers<Deps> {
  return { tool: defineTool, resource: defineResource, prompt: definePrompt };
}
