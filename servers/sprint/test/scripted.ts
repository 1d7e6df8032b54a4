import type { EventRow, SprintTimes } from '../src/domain/metrics.js';

/**
 * A scripted sprint S-1, Monday 2026-03-02 to Friday 2026-03-06, worked out by hand in the tests:
 * A (5), B (3), C (8) and D (2) planned on the Sunday and committed at the start (18 points); E (5) added on
 * day 2; B re-estimated 3 -> 5 and D removed on day 3; A done on day 2, B and E on day 4; C carried over.
 */
export const SPRINT: SprintTimes = {
  start_date: '2026-03-02',
  end_date: '2026-03-06',
  started_at: '2026-03-02T09:00:00.000Z',
  closed_at: '2026-03-06T18:00:00.000Z',
};

const e = (
  at: string,
  story: string,
  type: EventRow['type'],
  points: number | null,
  extra: Partial<EventRow> = {},
): EventRow => ({ story, sprint: 'S-1', type, from: null, to: null, points, at: `${at}:00.000Z`, ...extra });

export const EVENTS: EventRow[] = [
  e('2026-03-01T10:00', 'A', 'created', 5, { sprint: null, to: 'todo' }),
  e('2026-03-01T10:00', 'B', 'created', 3, { sprint: null, to: 'todo' }),
  e('2026-03-01T10:00', 'C', 'created', 8, { sprint: null, to: 'todo' }),
  e('2026-03-01T10:00', 'D', 'created', 2, { sprint: null, to: 'todo' }),
  e('2026-03-01T10:00', 'A', 'added', 5, { status: 'todo' }),
  e('2026-03-01T10:00', 'B', 'added', 3, { status: 'todo' }),
  e('2026-03-01T10:00', 'C', 'added', 8, { status: 'todo' }),
  e('2026-03-01T10:00', 'D', 'added', 2, { status: 'todo' }),
  e('2026-03-02T09:00', 'A', 'commit', 5, { status: 'todo' }),
  e('2026-03-02T09:00', 'B', 'commit', 3, { status: 'todo' }),
  e('2026-03-02T09:00', 'C', 'commit', 8, { status: 'todo' }),
  e('2026-03-02T09:00', 'D', 'commit', 2, { status: 'todo' }),
  e('2026-03-02T10:00', 'A', 'status', 5, { from: 'todo', to: 'in_progress' }),
  e('2026-03-03T11:00', 'E', 'created', 5, { sprint: null, to: 'todo' }),
  e('2026-03-03T11:00', 'E', 'added', 5, { status: 'todo' }),
  e('2026-03-03T15:00', 'A', 'status', 5, { from: 'in_progress', to: 'done' }),
  e('2026-03-04T09:00', 'B', 'points', 5, { from: '3', to: '5' }),
  e('2026-03-04T10:00', 'B', 'status', 5, { from: 'todo', to: 'in_progress' }),
  e('2026-03-04T12:00', 'D', 'removed', 2, { status: 'todo' }),
  e('2026-03-05T10:00', 'C', 'status', 8, { from: 'todo', to: 'in_progress' }),
  e('2026-03-05T17:00', 'E', 'status', 5, { from: 'todo', to: 'done' }),
  e('2026-03-05T19:00', 'B', 'status', 5, { from: 'in_progress', to: 'done' }),
  e('2026-03-06T18:00', 'C', 'carried', 8, { status: 'in_progress', to: 'S-2' }),
];
