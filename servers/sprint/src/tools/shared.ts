import { z } from '@shipyard/core';
import type { SprintDeps } from '../deps.js';
import { DEFAULT_TEAM, PRIORITIES, STORY_STATUSES } from '../domain/model.js';
import type { Actor } from '../store/types.js';

/** Who acts and when, for the events a write records. */
export function actor(ctx: { deps: SprintDeps; user: string | undefined }): Actor {
  return { actor: ctx.user ?? null, now: now(ctx.deps).toISOString() };
}

export const now = (deps: SprintDeps) => deps.now?.() ?? new Date();
export const today = (deps: SprintDeps) => now(deps).toISOString().slice(0, 10);

const isoDate = z
  .string()
  .max(10)
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value), 'must be a date as YYYY-MM-DD, e.g. 2026-12-01')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real calendar date');

/** Points: a number >= 0 with at most one decimal. */
const points = z
  .number()
  .min(0)
  .refine(
    (value) => Math.abs(value * 10 - Math.round(value * 10)) < 1e-9,
    'must have at most one decimal, e.g. 3 or 0.5',
  );

/** Input fields shared by several tools, so their descriptions and bounds agree. */
export const fields = {
  team: z
    .string()
    .trim()
    .max(60)
    .refine((team) => team.length > 0, 'must not be empty')
    .optional()
    .transform((team) => team ?? DEFAULT_TEAM)
    .describe('Team name'),
  sprint: z.string().trim().max(20).describe('Sprint key (S-12)'),
  story: z.string().trim().max(20).describe('Story key (ST-42)'),
  date: isoDate,
  points: points.describe('Points, e.g. 3 or 0.5'),
  priority: z.enum(PRIORITIES).describe('How urgent'),
  status: z.enum(STORY_STATUSES).describe('Story status'),
  title: z
    .string()
    .trim()
    .max(200)
    .refine((title) => title.length > 0, 'must not be empty')
    .describe('One-line title'),
  description: z.string().max(50_000).describe('Details, markdown'),
  acceptance: z.array(z.string().trim().max(500)).max(50).describe('Acceptance criteria'),
  assignee: z
    .string()
    .trim()
    .max(100)
    .refine((name) => name.length > 0, 'must not be empty')
    .describe('Who works on it'),
  ticket_ref: z
    .string()
    .trim()
    .max(20)
    .refine((key) => /^[A-Za-z][A-Za-z0-9]{1,9}-\d{1,9}$/.test(key), 'must be a ticket key like SHIP-42')
    .describe('Related ticket key, e.g. SHIP-42'),
  expected_version: z.number().int().optional().describe('Version read; stale: conflict'),
  chart: z.boolean().default(true).describe('false: no PNG'),
};

// Output shapes name enum fields as plain strings: the inputs list the values already.
export const SprintSchema = z.object({
  key: z.string(),
  team: z.string(),
  name: z.string(),
  end_date: z.string(),
  status: z.string(),
});

/** What a write answers about the sprint it changed. */
export const SprintRef = z.object({ key: z.string(), status: z.string(), version: z.number().int() });

export const StorySummarySchema = z.object({
  key: z.string(),
  title: z.string(),
  points: z.number().nullable(),
  priority: z.string(),
  assignee: z.string().nullable(),
  status: z.string(),
  version: z.number().int(),
});

export const VelocitySchema = z.object({
  committed: z.number(),
  completed: z.number(),
  added: z.number(),
  removed: z.number(),
  carried: z.number(),
  completion_rate: z.number().nullable(),
});

export const sprintOut = (sprint: z.input<typeof SprintSchema>) => ({
  key: sprint.key,
  team: sprint.team,
  name: sprint.name,
  end_date: sprint.end_date,
  status: sprint.status,
});

export const sprintRef = (sprint: { key: string; status: string; version: number }) => ({
  key: sprint.key,
  status: sprint.status,
  version: sprint.version,
});

/** A story on a board column (the column gives its status). */
export const StoryLineSchema = z.object({
  key: z.string(),
  title: z.string(),
  points: z.number().nullable(),
  assignee: z.string().nullable(),
  version: z.number().int(),
});

export const storyLine = (story: z.input<typeof StoryLineSchema>) => ({
  key: story.key,
  title: story.title,
  points: story.points,
  assignee: story.assignee,
  version: story.version,
});

/** The summary fields of a story. */
export const storySummary = (story: z.input<typeof StorySummarySchema>) => ({
  key: story.key,
  title: story.title,
  points: story.points,
  priority: story.priority,
  assignee: story.assignee,
  status: story.status,
  version: story.version,
});
