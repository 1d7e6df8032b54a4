import { defineFor } from '@shipyard/core';
import type { SnippetsStore } from './store/types.js';

export interface SnippetsDeps {
  store: SnippetsStore;
}

/** The define helpers of this server: their handlers get `ctx.deps` as SnippetsDeps. */
export const { tool, resource, prompt } = defineFor<SnippetsDeps>();
