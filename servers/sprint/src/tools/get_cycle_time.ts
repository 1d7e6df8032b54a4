import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { cycleTime } from '../domain/metrics.js';
import { addDays } from '../domain/model.js';
import { fields, today } from './shared.js';

const Durations = z.object({
  count: z.number().int(),
  median_hours: z.number().nullable(),
  p85_hours: z.number().nullable(),
});

export default tool({
  name: 'get_cycle_time',
  title: 'Cycle time',
  description:
    'Get cycle time of a sprint or team: median and p85 hours to done, per status. Returns counts. Use this ' +
    'to find waits.',
  input: {
    team: fields.team,
    sprint: fields.sprint.optional().describe("Only this sprint's stories"),
    days: z.number().int().min(1).max(3650).default(90).describe('Days back, no sprint'),
  },
  output: { cycle: Durations, per_status: z.record(z.string(), Durations) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const scope =
      input.sprint !== undefined
        ? { sprint: input.sprint }
        : { team: input.team, since: addDays(today(ctx.deps), -input.days) };
    return cycleTime(await ctx.deps.store.statusEvents(scope));
  },
});
