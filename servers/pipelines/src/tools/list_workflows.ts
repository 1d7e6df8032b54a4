import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { durationsUri } from '../domain/model.js';
import { fields, repoOf } from './shared.js';

export default tool({
  name: 'list_workflows',
  title: 'List workflows',
  description:
    'List the GitHub Actions workflows of a repo (repo, refresh). Returns id, name, file and state of each, ' +
    'with the URI of its durations chart. Use this to find the workflow to pass to list_runs or get_duration_trends.',
  input: {
    repo: fields.repo,
    refresh: z
      .boolean()
      .optional()
      .describe('Fetch them from GitHub even if known (default: only when none are)'),
  },
  output: {
    repo: z.string(),
    workflows: z.array(
      z.object({ id: z.number(), name: z.string(), path: z.string(), state: z.string(), chart: z.string() }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    const repo = repoOf(input.repo, ctx.deps);
    let workflows = input.refresh ? [] : await ctx.deps.store.listWorkflows(repo);
    if (workflows.length === 0) {
      await ctx.deps.store.saveWorkflows(await ctx.deps.github.listWorkflows(repo, ctx.signal));
      workflows = await ctx.deps.store.listWorkflows(repo);
    }
    return {
      repo,
      workflows: workflows.map(({ repo: _repo, ...w }) => ({ ...w, chart: durationsUri(w.id) })),
    };
  },
});
