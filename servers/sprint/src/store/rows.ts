/** Rows as both engines return them, and their mapping to the domain's objects. */
import type { EventRow, EventType } from '../domain/metrics.js';
import {
  type Priority,
  type Sprint,
  type SprintStatus,
  type Story,
  type StoryStatus,
  type StorySummary,
  sprintKey,
  storyKey,
} from '../domain/model.js';

export interface SprintRow {
  id: number;
  team: string;
  name: string;
  goal: string;
  start_date: string;
  end_date: string;
  capacity: number | null;
  status: string;
  started_at: string | null;
  closed_at: string | null;
  summary: string | null;
  version: number;
}

export interface StoryRow {
  id: number;
  team: string;
  title: string;
  description: string;
  acceptance: string;
  points: number | null;
  priority: string;
  assignee: string | null;
  status: string;
  sprint_id: number | null;
  rank: string;
  ticket_ref: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface EventDbRow {
  story_id: number;
  sprint_id: number | null;
  type: string;
  from_value: string | null;
  to_value: string | null;
  points: number | null;
  at: string;
}

export const toSprint = (row: SprintRow): Sprint => ({
  key: sprintKey(row.id),
  team: row.team,
  name: row.name,
  goal: row.goal,
  start_date: row.start_date,
  end_date: row.end_date,
  capacity: row.capacity,
  status: row.status as SprintStatus,
  started_at: row.started_at,
  closed_at: row.closed_at,
  version: row.version,
});

export const toStory = (row: StoryRow): Story => ({
  key: storyKey(row.id),
  team: row.team,
  title: row.title,
  description: row.description,
  acceptance: JSON.parse(row.acceptance) as string[],
  points: row.points,
  priority: row.priority as Priority,
  assignee: row.assignee,
  status: row.status as StoryStatus,
  sprint: row.sprint_id === null ? null : sprintKey(row.sprint_id),
  rank: row.rank,
  ticket_ref: row.ticket_ref,
  version: row.version,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export const SUMMARY_COLUMNS =
  'id, title, points, priority, assignee, status, sprint_id, ticket_ref, version';
export const toSummary = (
  row: Pick<
    StoryRow,
    'id' | 'title' | 'points' | 'priority' | 'assignee' | 'status' | 'sprint_id' | 'ticket_ref' | 'version'
  >,
): StorySummary => ({
  key: storyKey(row.id),
  title: row.title,
  points: row.points,
  priority: row.priority as Priority,
  assignee: row.assignee,
  status: row.status as StoryStatus,
  sprint: row.sprint_id === null ? null : sprintKey(row.sprint_id),
  ticket_ref: row.ticket_ref,
  version: row.version,
});

/** Event rows as the metrics read them. The status of added, removed and commit events is in `status`. */
export const toEvent = (row: EventDbRow): EventRow => {
  const type = row.type as EventType;
  const event: EventRow = {
    story: storyKey(row.story_id),
    sprint: row.sprint_id === null ? null : sprintKey(row.sprint_id),
    type,
    from: row.from_value,
    to: row.to_value,
    points: row.points,
    at: row.at,
  };
  // Moves keep the story's status in from_value's place: see recordMove.
  if (type === 'added' || type === 'removed' || type === 'carried' || type === 'commit') {
    const [status, place] = splitStatus(row.from_value);
    event.status = status;
    event.from = place;
  }
  return event;
};

/** from_value of a move event: `<status>|<other place>` (place empty for the backlog). */
export const joinStatus = (status: string, place: string | null) => `${status}|${place ?? ''}`;
export const splitStatus = (value: string | null): [string | null, string | null] => {
  if (value === null) return [null, null];
  const bar = value.indexOf('|');
  if (bar < 0) return [value, null];
  return [value.slice(0, bar), value.slice(bar + 1) || null];
};

/** One event row to record, before its time and actor. */
export interface NewEvent {
  storyId: number;
  sprintId: number | null;
  type: EventType;
  from: string | null;
  to: string | null;
  points: number | null;
}

/** The events of a story leaving one place and entering another (either may be the backlog). */
export function moveEvents(
  story: Pick<StoryRow, 'id' | 'status' | 'points'>,
  fromSprint: number | null,
  toSprint: number | null,
  leaving: 'removed' | 'carried' = 'removed',
): NewEvent[] {
  if (fromSprint === toSprint) return [];
  const place = (id: number | null) => (id === null ? null : sprintKey(id));
  const events: NewEvent[] = [];
  const common = { storyId: story.id, to: place(toSprint), points: story.points };
  if (fromSprint !== null) {
    events.push({
      ...common,
      sprintId: fromSprint,
      type: leaving,
      from: joinStatus(story.status, place(toSprint)),
    });
  }
  if (toSprint !== null) {
    events.push({
      ...common,
      sprintId: toSprint,
      type: 'added',
      from: joinStatus(story.status, place(fromSprint)),
    });
  }
  return events;
}
