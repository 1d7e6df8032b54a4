import { defineFor } from '@shipyard/core';
import type { TicketsDb } from './domain/model.js';

export interface TicketsDeps {
  db: TicketsDb;
  /** Opens what db opens lazily; called once the first client has initialized. */
  warmUp?: () => void;
  /** Called once on shutdown (closes the database). */
  close?: () => void;
}

/** The define helpers of this server: their handlers get `ctx.deps` as TicketsDeps. */
export const { tool, resource, prompt } = defineFor<TicketsDeps>();
