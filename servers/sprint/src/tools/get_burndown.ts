import { withImages, z } from '@shipyard/core';
import { lineSvg, png } from '../charts.js';
import { tool } from '../deps.js';
import { loadBurndown } from '../reports.js';
import { fields, today } from './shared.js';

export default tool({
  name: 'get_burndown',
  title: 'Sprint burndown',
  description:
    'Get a sprint burndown by key, a chart unless chart is false. Returns per day ideal and actual remaining ' +
    'and scope changes. Use this to check progress.',
  input: { sprint: fields.sprint, chart: fields.chart },
  output: {
    sprint: z.string(),
    days: z.array(
      z.object({
        date: z.string(),
        ideal: z.number(),
        actual: z.number().nullable(),
        scope_change: z.number(),
      }),
    ),
    scope_changes: z.array(z.string()),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  images: true,
  async handler(input, ctx) {
    const { sprint, data, chart } = await loadBurndown(ctx.deps.store, input.sprint, today(ctx.deps));
    const scope_changes = data.scope_changes.map(
      (change) =>
        `${change.date} ${change.story} ${change.kind} ${change.points > 0 ? '+' : ''}${change.points}`,
    );
    const answer = { sprint: sprint.key, days: data.days, scope_changes };
    if (!input.chart) return answer;
    return withImages(answer, [{ data: await png(await lineSvg(chart)), mimeType: 'image/png' }]);
  },
});
