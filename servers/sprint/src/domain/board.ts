import type { BoardData } from '../store/types.js';
import { daysBetween, round1 } from './model.js';

/** Days left in a sprint, today included; null once closed, the whole length while planned. */
export function daysLeft(sprint: { status: string; start_date: string; end_date: string }, today: string) {
  if (sprint.status === 'closed') return null;
  const from = today > sprint.start_date ? today : sprint.start_date;
  return Math.max(0, daysBetween(from, sprint.end_date) + 1);
}

/** The board's totals from its columns. */
export function boardView(board: BoardData, today: string) {
  let count = 0;
  let points = 0;
  let done = 0;
  for (const column of board.columns) {
    count += column.count;
    points += column.points;
    if (column.status === 'done') done += column.points;
  }
  return {
    days_left: daysLeft(board.sprint, today),
    totals: { count, points: round1(points), done: round1(done), remaining: round1(points - done) },
    committed: board.committed,
    columns: board.columns,
  };
}
