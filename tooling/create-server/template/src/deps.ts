import { defineFor } from '@shipyard/core';
import type { __Pascal__Db } from './domain/items.js';

export interface __Pascal__Deps {
  db: __Pascal__Db;
  /** Opens what db opens lazily; called once the first client has initialized. */
  warmUp?: () => void;
  /** Called once on shutdown (closes the database). */
  close?: () => void;
}

/** The define helpers of this server: their handlers get `ctx.deps` as __Pascal__Deps. */
export const { tool, resource, prompt } = defineFor<__Pascal__Deps>();
