import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields, runDetail } from './shared.js';

export default tool({
  name: 'get_run',
  title: 'Get a workflow run',
  description:
    'Get one synced run by id (run). Returns its branch, commit, status, attempt, queue time and duration, its ' +
    "jobs and steps with durations, each cached log's URI, and the failed test count. Use this after list_runs; " +
    'for why it failed, call get_failure_summary.',
  input: { run: fields.run },
  output: {
    run: z.object({ id: z.number() }).loose(),
    jobs: z.array(z.object({ id: z.number(), name: z.string() }).loose()),
    failed_tests: z.number(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (input, ctx) => runDetail(ctx.deps, input.run),
});
