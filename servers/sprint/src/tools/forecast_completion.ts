import { InvalidInput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { forecast } from '../domain/metrics.js';
import { addDays, daysBetween } from '../domain/model.js';
import { fields, today } from './shared.js';

export default tool({
  name: 'forecast_completion',
  title: 'Forecast completion',
  description:
    'Forecast when points, or the backlog through a story, are done (Monte Carlo). Returns p50/p85/p95 ' +
    'sprints and dates. Use this for "when".',
  input: {
    team: fields.team,
    points: fields.points.optional().describe('Points to finish'),
    through: fields.story.optional().describe('Backlog top down to this story'),
    seed: z.number().int().min(0).optional().describe('Seed, for repeats'),
    history: z.number().int().min(3).max(50).default(10).describe('Sprints sampled'),
  },
  output: {
    points: z.number(),
    unestimated: z.number().int(),
    seed: z.number().int(),
    reason: z.string().optional(),
    percentiles: z
      .array(z.object({ p: z.number().int(), sprints: z.number().int(), date: z.string() }))
      .optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    if ((input.points === undefined) === (input.through === undefined)) {
      throw new InvalidInput('Pass points or through, one of them', {
        hint: 'e.g. points: 40, or through: "ST-42" (get_backlog lists the order)',
      });
    }
    const { store } = ctx.deps;
    let points = input.points ?? 0;
    let unestimated = 0;
    if (input.through !== undefined) {
      const backlog = await store.backlogPoints(input.team, input.through);
      points = backlog.points;
      unestimated = backlog.unestimated;
    }
    const history = await store.closedSprints(input.team, input.history);
    const seed = input.seed ?? Math.floor(Math.random() * 2 ** 31);
    const lengths = history.map(({ sprint }) => daysBetween(sprint.start_date, sprint.end_date) + 1);
    const sprintDays =
      lengths.length > 0 ? Math.round(lengths.reduce((a, b) => a + b, 0) / lengths.length) : 14;
    // Forecast sprints follow the active or latest sprint, or start today.
    const latest = history.at(-1)?.sprint.end_date;
    const start = latest !== undefined && latest >= today(ctx.deps) ? addDays(latest, 1) : today(ctx.deps);
    const result = forecast({
      velocities: history.map(({ velocity }) => velocity.completed),
      points,
      seed,
      sprint_days: sprintDays,
      from: start,
    });
    return result.enough_history
      ? {
          points,
          unestimated,
          seed,
          percentiles: ([50, 85, 95] as const).map((p) => ({
            p,
            sprints: result.sprints[`p${p}`],
            date: result.dates[`p${p}`],
          })),
        }
      : { points, unestimated, seed, reason: result.reason };
  },
});
