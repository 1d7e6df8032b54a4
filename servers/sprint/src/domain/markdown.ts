import type { BoardData } from '../store/types.js';
import { boardView } from './board.js';

/** A sprint's summary as markdown. Story titles are user text. */
export function sprintMarkdown(board: BoardData, today: string): string {
  const { sprint } = board;
  const view = boardView(board, today);
  const lines = [
    `# ${sprint.key} ${sprint.name}`,
    '',
    `- team: ${sprint.team}`,
    `- status: ${sprint.status}`,
    `- dates: ${sprint.start_date} to ${sprint.end_date}${view.days_left !== null ? ` (${view.days_left} days left)` : ''}`,
    `- capacity: ${sprint.capacity ?? 'not set'}`,
    `- committed: ${board.committed ? `${board.committed.count} stories, ${board.committed.points} points` : 'not started'}`,
    `- now: ${view.totals.count} stories, ${view.totals.points} points, ${view.totals.done} done, ${view.totals.remaining} remaining`,
  ];
  if (sprint.goal) lines.push('', '## Goal', '', sprint.goal);
  lines.push('', '## Board', '');
  for (const column of board.columns) {
    lines.push(`### ${column.status} (${column.count}, ${column.points} points)`, '');
    for (const story of column.stories) {
      lines.push(
        `- ${story.key} ${story.title} (${story.points ?? '?'} points${story.assignee ? `, ${story.assignee}` : ''})`,
      );
    }
    if (column.count > column.stories.length) lines.push(`- … ${column.count - column.stories.length} more`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
