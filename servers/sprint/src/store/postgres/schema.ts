import { sql } from 'drizzle-orm';
import {
  customType,
  doublePrecision,
  index,
  integer,
  pgTable,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * Text compared and sorted by code point, as SQLite's BINARY collation does, whatever the database's
 * collation: ranks, dates and times are ordered as strings.
 */
const ctext = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** The tables of the SQLite schema, one for one; points are double precision as SQLite's REAL. */
export const sprints = pgTable(
  'sprints',
  {
    id: serial('id').primaryKey(),
    team: text('team').notNull(),
    name: text('name').notNull(),
    goal: text('goal').notNull().default(''),
    startDate: ctext('start_date').notNull(),
    endDate: ctext('end_date').notNull(),
    capacity: doublePrecision('capacity'),
    status: text('status').notNull().default('planned'),
    startedAt: ctext('started_at'),
    closedAt: ctext('closed_at'),
    /** Figures recorded at close (velocity of a closed sprint): JSON of domain/metrics SprintVelocity. */
    summary: text('summary'),
    version: integer('version').notNull().default(1),
    createdAt: ctext('created_at').notNull(),
  },
  (t) => [
    index('sprints_team_status').on(t.team, t.status, t.id),
    // At most one active sprint per team.
    uniqueIndex('sprints_one_active').on(t.team).where(sql`status = 'active'`),
  ],
);

export const stories = pgTable(
  'stories',
  {
    id: serial('id').primaryKey(),
    team: text('team').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    acceptance: text('acceptance').notNull().default('[]'),
    points: doublePrecision('points'),
    priority: text('priority').notNull().default('none'),
    assignee: text('assignee'),
    status: text('status').notNull().default('todo'),
    sprintId: integer('sprint_id').references(() => sprints.id),
    /** Fractional rank string: one order over a team's stories, backlog and sprints alike. */
    rank: ctext('rank').notNull(),
    ticketRef: text('ticket_ref'),
    version: integer('version').notNull().default(1),
    createdAt: ctext('created_at').notNull(),
    updatedAt: ctext('updated_at').notNull(),
  },
  (t) => [
    // A duplicate rank within a team is impossible.
    uniqueIndex('stories_team_rank').on(t.team, t.rank),
    index('stories_sprint_status_rank').on(t.sprintId, t.status, t.rank),
    index('stories_team_sprint_rank').on(t.team, t.sprintId, t.rank),
  ],
);

export const events = pgTable(
  'events',
  {
    id: serial('id').primaryKey(),
    storyId: integer('story_id')
      .notNull()
      .references(() => stories.id),
    /** The sprint the event belongs to: the story's sprint at the time (null: the backlog). */
    sprintId: integer('sprint_id'),
    type: text('type').notNull(),
    fromValue: text('from_value'),
    toValue: text('to_value'),
    /** The story's points when the event happened (after it, for a points change). */
    points: doublePrecision('points'),
    at: ctext('at').notNull(),
    actor: text('actor'),
  },
  (t) => [index('events_sprint').on(t.sprintId, t.at), index('events_story').on(t.storyId, t.id)],
);

export const schema = { sprints, stories, events };
