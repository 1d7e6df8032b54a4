import { pageWindow, paginationInput, paginationOutput, toPage, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields, isoSince, repoOf, sinceField } from './shared.js';

export default tool({
  name: 'find_flaky_tests',
  title: 'Find flaky tests',
  description:
    'Find tests that failed and then passed on the same commit, from synced runs and ingested reports (repo, ' +
    'since). Returns tests ranked by flip rate (flaky commits / commits seen) with runs seen and last seen, 20 a ' +
    'page, and the flaky jobs likewise. Use this before blaming a failed test on the change.',
  input: { repo: fields.repo, since: sinceField, ...paginationInput },
  output: {
    items: z.array(z.object({ suite: z.string(), name: z.string(), flip_rate: z.number() }).loose()),
    ...paginationOutput,
    jobs: z.array(z.object({ workflow: z.string(), job: z.string(), flip_rate: z.number() }).loose()),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const repo = repoOf(input.repo, ctx.deps);
    const since = isoSince(input.since);
    const query = JSON.stringify({ repo, since });
    const window = pageWindow(input, query);
    const { tests, total } = await ctx.deps.store.flakyTests(repo, since, window);
    const jobs = window.offset === 0 ? await ctx.deps.store.flakyJobs(repo, since, 10) : [];
    return { ...toPage(tests, total, window, query), jobs };
  },
});
