import { defineFor } from '@shipyard/core';
import type { TicketsStore } from './store/types.js';

export interface TicketsDeps {
  /** The storage (SQLite, or PostgreSQL with --database-url), opened lazily: warmUp opens it, close closes it. */
  store: TicketsStore;
}

/** The define helpers of this server: their handlers get `ctx.deps` as TicketsDeps. */
export const { tool, resource, prompt } = defineFor<TicketsDeps>();
