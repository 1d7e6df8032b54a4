import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { runUri } from '../domain/model.js';
import { fields, runOrThrow } from './shared.js';

export default tool({
  name: 'rerun_run',
  title: 'Rerun a workflow run',
  description:
    'Ask GitHub to rerun a completed run (run), all its jobs or only the failed ones (failed_only). Returns what ' +
    'was asked; the new attempt shows after sync_runs. Use this for a failure that find_flaky_tests shows is flaky. ' +
    'Needs a token with Actions write access.',
  input: {
    run: fields.run,
    failed_only: z.boolean().optional().describe('Rerun only failed jobs (default false: all)'),
  },
  output: { run: z.number(), rerun: z.enum(['all', 'failed']), next: z.string() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async handler(input, ctx) {
    const run = await runOrThrow(ctx.deps, input.run);
    await ctx.deps.github.rerun(run.repo, run.id, input.failed_only ?? false);
    ctx.changed(runUri(run.id));
    return {
      run: run.id,
      rerun: input.failed_only ? ('failed' as const) : ('all' as const),
      next: 'Call sync_runs in a minute, then get_run to follow the new attempt',
    };
  },
});
