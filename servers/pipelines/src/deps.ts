import { defineFor } from '@shipyard/core';
import type { PipelinesDb } from './domain/items.js';

export interface PipelinesDeps {
  db: PipelinesDb;
  /** Opens what db opens lazily; called once the first client has initialized. */
  warmUp?: () => void;
  /** Called once on shutdown (closes the database). */
  close?: () => void;
}

/** The define helpers of this server: their handlers get `ctx.deps` as PipelinesDeps. */
export const { tool, resource, prompt } = defineFor<PipelinesDeps>();
