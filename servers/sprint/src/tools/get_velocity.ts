import { withImages, z } from '@shipyard/core';
import { barSvg, png } from '../charts.js';
import { tool } from '../deps.js';
import { loadVelocity } from '../reports.js';
import { fields, VelocitySchema } from './shared.js';

export default tool({
  name: 'get_velocity',
  title: 'Velocity',
  description:
    "Get velocity of a team's last closed sprints, average, trend, a chart unless chart is false. Returns " +
    'points committed, completed, added, removed. Use this to plan.',
  input: {
    team: fields.team,
    last: z.number().int().min(1).max(50).default(10).describe('Sprints shown'),
    chart: fields.chart,
  },
  output: {
    sprints: z.array(VelocitySchema.omit({ carried: true }).extend({ sprint: z.string() })),
    average_completed: z.number().nullable(),
    trend: z.string(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  images: true,
  async handler(input, ctx) {
    const { rows, summary, chart } = await loadVelocity(ctx.deps.store, input.team, input.last);
    const answer = {
      sprints: rows.map(({ name: _name, carried: _carried, ...row }) => row),
      average_completed: summary.average_completed,
      trend: summary.trend,
    };
    if (!input.chart) return answer;
    return withImages(answer, [{ data: await png(await barSvg(chart)), mimeType: 'image/png' }]);
  },
});
