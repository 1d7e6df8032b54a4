import { defineFor } from '@shipyard/core';
import type { NotesDb } from './domain/notes.js';

export interface ExampleDeps {
  db: NotesDb;
  /** Opens what db opens lazily; called once the first client has initialized. */
  warmUp?: () => void;
  /** Called once on shutdown (closes the database). */
  close?: () => void;
}

/** The define helpers of this server: their handlers get `ctx.deps` as ExampleDeps. */
export const { tool, resource, prompt } = defineFor<ExampleDeps>();
