import { InvalidInput } from '@shipyard/core';

export const SPRINT_STATUSES = ['planned', 'active', 'closed'] as const;
export type SprintStatus = (typeof SPRINT_STATUSES)[number];
export const STORY_STATUSES = ['todo', 'in_progress', 'in_review', 'done', 'blocked'] as const;
export type StoryStatus = (typeof STORY_STATUSES)[number];
export const PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const DEFAULT_TEAM = 'default';

export const SPRINT_KEY = /^S-(\d{1,9})$/;
export const STORY_KEY = /^ST-(\d{1,9})$/;
export const sprintKey = (id: number) => `S-${id}`;
export const storyKey = (id: number) => `ST-${id}`;

export interface Sprint {
  key: string;
  team: string;
  name: string;
  goal: string;
  start_date: string;
  end_date: string;
  capacity: number | null;
  status: SprintStatus;
  started_at: string | null;
  closed_at: string | null;
  version: number;
}

export interface Story {
  key: string;
  team: string;
  title: string;
  description: string;
  acceptance: string[];
  points: number | null;
  priority: Priority;
  assignee: string | null;
  status: StoryStatus;
  sprint: string | null;
  rank: string;
  ticket_ref: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export type StorySummary = Pick<
  Story,
  'key' | 'title' | 'points' | 'priority' | 'assignee' | 'status' | 'sprint' | 'ticket_ref' | 'version'
>;

/** The numeric id in a key (`s-12` is S-12), or undefined for text that is no key of that kind. */
export function keyId(key: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(key.trim().toUpperCase());
  return match ? Number(match[1]) : undefined;
}

/** Sprint dates: YYYY-MM-DD, end after start. */
export function checkDates(start: string, end: string): void {
  if (end <= start) {
    throw new InvalidInput(`end_date ${end} must be after start_date ${start}`, {
      hint: 'Pass an end_date later than the start_date, e.g. two weeks after it',
    });
  }
}

/** Whole days from one YYYY-MM-DD to another. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The YYYY-MM-DD `days` after `date`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Every YYYY-MM-DD from start to end, both included. */
export function dayRange(start: string, end: string): string[] {
  const days: string[] = [];
  for (let day = start; day <= end; day = addDays(day, 1)) days.push(day);
  return days;
}

/** Points rounded to one decimal, the precision they are given in (sums of 0.1 drift otherwise). */
export const round1 = (value: number) => Math.round(value * 10) / 10;

/** URIs a change to a sprint touches. */
export function sprintUris(key: string): string[] {
  return [
    'sprint://sprints',
    `sprint://${key}`,
    `sprint://${key}/board`,
    `sprint://${key}/burndown.svg`,
    `sprint://${key}/burndown.png`,
  ];
}

export const BACKLOG_URI = 'sprint://backlog';
export const VELOCITY_URIS = ['sprint://velocity.svg', 'sprint://velocity.png'];
