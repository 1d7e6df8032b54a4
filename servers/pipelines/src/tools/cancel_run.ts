import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { runUri } from '../domain/model.js';
import { fields, runOrThrow } from './shared.js';

export default tool({
  name: 'cancel_run',
  title: 'Cancel a workflow run',
  description:
    'Ask GitHub to cancel a queued or running run (run). Returns what was asked; sync_runs shows it cancelled. ' +
    'Use this to stop a run that is no longer wanted. Needs a token with Actions write access.',
  input: { run: fields.run },
  output: { run: z.number(), cancelled: z.boolean(), next: z.string() },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    const run = await runOrThrow(ctx.deps, input.run);
    await ctx.deps.github.cancel(run.repo, run.id);
    ctx.changed(runUri(run.id));
    return { run: run.id, cancelled: true, next: 'Call sync_runs to see its final status' };
  },
});
