import { NotFound, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { durationTrend } from '../domain/durations.js';
import { durationsUri } from '../domain/model.js';
import { fields, repoOf } from './shared.js';

const DAY = 86_400_000;

export default tool({
  name: 'get_duration_trends',
  title: 'Get duration trends',
  description:
    "Get durations of a workflow's successful runs, or of one job (workflow, job, bucket, days). Returns p50/p95 " +
    'per day or week, the baseline of the baseline_days before, and the periods whose p50 exceeds it by ' +
    'threshold_pct. Use this to answer which job got slower and since when.',
  input: {
    repo: fields.repo,
    workflow: fields.workflow,
    job: z.string().min(1).max(200).optional().describe('Job name; default the whole run'),
    bucket: z.enum(['day', 'week']).optional().describe('Default day'),
    days: z.number().int().min(1).max(365).optional().describe('Window, ending now (default 14)'),
    baseline_days: z.number().int().min(1).max(365).optional().describe('Baseline before it (default 14)'),
    threshold_pct: z.number().min(1).max(1_000).optional().describe('Default 20'),
  },
  output: {
    workflow: z.string(),
    baseline: z.object({ runs: z.number(), p50_ms: z.number().nullable(), p95_ms: z.number().nullable() }),
    points: z.array(z.object({ period: z.string(), p50_ms: z.number(), regression: z.boolean() }).loose()),
    regressions: z.array(z.string()),
    chart: z.string(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const repo = repoOf(input.repo, ctx.deps);
    const workflow = await ctx.deps.store.findWorkflow(repo, input.workflow);
    if (!workflow) {
      throw new NotFound(`No workflow "${input.workflow}" in ${repo}`, { hint: 'list_workflows names them' });
    }
    const now = Date.now();
    const since = new Date(now - (input.days ?? 14) * DAY).toISOString();
    const baselineFrom = new Date(Date.parse(since) - (input.baseline_days ?? 14) * DAY).toISOString();
    const items = await ctx.deps.store.durations(workflow.id, input.job, baselineFrom);
    const trend = durationTrend(items, {
      since,
      baselineFrom,
      bucket: input.bucket ?? 'day',
      thresholdPct: input.threshold_pct ?? 20,
    });
    return { workflow: workflow.name, ...trend, chart: durationsUri(workflow.id) };
  },
});
