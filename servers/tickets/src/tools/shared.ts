import { InvalidInput, z } from '@shipyard/core';
import { PRIORITIES, PROJECT_KEY, TYPES } from '../domain/model.js';

// Output schemas name enum fields as plain strings: the input schemas already list the values, and
// repeating them in every output would cost tokens in each tools/list.
export const TicketSummarySchema = z.object({
  key: z.string(),
  title: z.string(),
  type: z.string(),
  status: z.string(),
  priority: z.string(),
  assignee: z.string().nullable(),
  labels: z.array(z.string()),
  updated_at: z.string(),
});

export const TicketSchema = TicketSummarySchema.extend({
  project: z.string(),
  description: z.string(),
  reporter: z.string().nullable(),
  estimate: z.number().nullable(),
  due_date: z.string().nullable(),
  parent: z.string().nullable(),
  resolution: z.string().nullable(),
  version: z.number().int(),
  created_at: z.string(),
});

/** YYYY-MM-DD that is a real calendar day (a short pattern instead of the 300-character one of z.iso.date). */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real date');

/** Input field definitions reused by several tools, so their descriptions and bounds agree. */
export const fields = {
  project: z.string().regex(PROJECT_KEY).describe('Project key, e.g. SHIP'),
  key: z.string().max(24).describe('Ticket key, e.g. SHIP-42'),
  title: z.string().trim().min(1).max(200).describe('One-line summary'),
  description: z.string().max(50_000).describe('Details, markdown'),
  type: z.enum(TYPES).describe('bug, feature, task or chore'),
  priority: z.enum(PRIORITIES).describe('urgent, high, medium, low or none'),
  assignee: z.string().trim().min(1).max(100).describe('Who works on it, or "me"'),
  labels: z.array(z.string().trim().min(1).max(50)).max(20).describe('Labels, stored lower-case'),
  estimate: z.number().min(0).max(10_000).describe('Estimate in points'),
  due_date: isoDate.describe('Due date, YYYY-MM-DD'),
  parent: z.string().max(24).describe('Parent ticket key'),
};

/** "me" means the configured user (--user / SHIPYARD_USER). */
export function resolveUser(value: string, user: string | undefined): string {
  if (value.toLowerCase() !== 'me') return value;
  if (!user) {
    throw new InvalidInput('"me" needs a configured user, and this server has none', {
      hint: 'Name the person instead, or start the server with --user / SHIPYARD_USER',
    });
  }
  return user;
}
