import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const sprints = sqliteTable(
  'sprints',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    team: text('team').notNull(),
    name: text('name').notNull(),
    goal: text('goal').notNull().default(''),
    startDate: text('start_date').notNull(),
    endDate: text('end_date').notNull(),
    capacity: real('capacity'),
    status: text('status').notNull().default('planned'),
    startedAt: text('started_at'),
    closedAt: text('closed_at'),
    /** Figures recorded at close (velocity of a closed sprint): JSON of domain/metrics SprintVelocity. */
    summary: text('summary'),
    version: integer('version').notNull().default(1),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    index('sprints_team_status').on(t.team, t.status, t.id),
    // At most one active sprint per team.
    uniqueIndex('sprints_one_active').on(t.team).where(sql`status = 'active'`),
  ],
);

export const stories = sqliteTable(
  'stories',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    team: text('team').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    acceptance: text('acceptance').notNull().default('[]'),
    points: real('points'),
    priority: text('priority').notNull().default('none'),
    assignee: text('assignee'),
    status: text('status').notNull().default('todo'),
    sprintId: integer('sprint_id').references(() => sprints.id),
    /** Fractional rank string: one order over a team's stories, backlog and sprints alike. */
    rank: text('rank').notNull(),
    ticketRef: text('ticket_ref'),
    version: integer('version').notNull().default(1),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    // A duplicate rank within a team is impossible.
    uniqueIndex('stories_team_rank').on(t.team, t.rank),
    index('stories_sprint_status_rank').on(t.sprintId, t.status, t.rank),
    index('stories_team_sprint_rank').on(t.team, t.sprintId, t.rank),
  ],
);

export const events = sqliteTable(
  'events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    storyId: integer('story_id')
      .notNull()
      .references(() => stories.id),
    /** The sprint the event belongs to: the story's sprint at the time (null: the backlog). */
    sprintId: integer('sprint_id'),
    type: text('type').notNull(),
    fromValue: text('from_value'),
    toValue: text('to_value'),
    /** The story's points when the event happened (after it, for a points change). */
    points: real('points'),
    at: text('at').notNull(),
    actor: text('actor'),
  },
  (t) => [index('events_sprint').on(t.sprintId, t.at), index('events_story').on(t.storyId, t.id)],
);

export const schema = { sprints, stories, events };
