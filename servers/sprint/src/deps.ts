import { defineFor } from '@shipyard/core';
import type { SprintStore } from './store/types.js';

export interface SprintDeps {
  store: SprintStore;
  /** The clock (tests pass a fixed one). */
  now?: () => Date;
  /** Opens what the store opens lazily; called once the first client has initialized. */
  warmUp?: () => void | Promise<void>;
  /** Called once on shutdown (closes the database). */
  close?: () => void | Promise<void>;
}

/** The define helpers of this server: their handlers get `ctx.deps` as SprintDeps. */
export const { tool, resource, prompt } = defineFor<SprintDeps>();
