import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { boardView } from '../domain/board.js';
import { fields, StoryLineSchema, storyLine, today } from './shared.js';

/** Stories shown per column, first by rank. */
export const PER_COLUMN = 10;

export default tool({
  name: 'get_sprint',
  title: 'Sprint board',
  description:
    'Get a sprint board by key: per status count, points, stories; totals, days left, committed. Returns ' +
    'them. Use this to see a sprint.',
  input: { sprint: fields.sprint },
  output: {
    name: z.string(),
    status: z.string(),
    end_date: z.string(),
    version: z.number().int(),
    days_left: z.number().int().nullable(),
    total_points: z.number(),
    remaining_points: z.number(),
    committed_points: z.number().nullable(),
    columns: z.array(
      z.object({
        status: z.string(),
        count: z.number().int(),
        points: z.number(),
        stories: z.array(StoryLineSchema),
      }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const board = await ctx.deps.store.getBoard(input.sprint, PER_COLUMN);
    const view = boardView(board, today(ctx.deps));
    const columns = view.columns.map((column) => ({ ...column, stories: column.stories.map(storyLine) }));
    const { name, status, end_date, version } = board.sprint;
    return {
      name,
      status,
      end_date,
      version,
      days_left: view.days_left,
      total_points: view.totals.points,
      remaining_points: view.totals.remaining,
      committed_points: view.committed?.points ?? null,
      columns,
    };
  },
});
