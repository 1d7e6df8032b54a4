import { NotFound, pageWindow, paginationInput, paginationOutput, toPage, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { fields, repoOf } from './shared.js';

export default tool({
  name: 'list_runs',
  title: 'List workflow runs',
  description:
    'List synced workflow runs of a repo, newest first, filtered by workflow, branch, status or conclusion, ' +
    'commit (prefix) and event. Returns run summaries, 20 a page, with next_cursor and total. Use this to find ' +
    'a run id; call sync_runs first to pull recent runs from GitHub.',
  input: {
    repo: fields.repo,
    workflow: fields.workflow.optional(),
    branch: z.string().min(1).max(255).optional().describe('Branch name'),
    status: z.string().min(1).max(30).optional().describe('Status or conclusion, e.g. failure, in_progress'),
    commit: z
      .string()
      .regex(/^[0-9a-fA-F]{4,40}$/, 'hex')
      .optional()
      .describe('Commit SHA or its prefix'),
    event: z.string().min(1).max(50).optional().describe('Trigger, e.g. push, pull_request'),
    ...paginationInput,
  },
  output: {
    items: z.array(
      z.object({ id: z.number(), workflow: z.string(), conclusion: z.string().nullable() }).loose(),
    ),
    ...paginationOutput,
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const repo = repoOf(input.repo, ctx.deps);
    let workflow: string | undefined;
    if (input.workflow !== undefined) {
      const found = await ctx.deps.store.findWorkflow(repo, input.workflow);
      if (!found) {
        throw new NotFound(`No workflow "${input.workflow}" in ${repo}`, {
          hint: 'list_workflows names them',
        });
      }
      workflow = String(found.id);
    }
    const { limit: _l, cursor: _c, ...filters } = input;
    const query = JSON.stringify({ ...filters, repo });
    const window = pageWindow(input, query);
    const { runs, total } = await ctx.deps.store.listRuns(
      {
        repo,
        workflow,
        branch: input.branch,
        status: input.status,
        commit: input.commit,
        event: input.event,
      },
      window,
    );
    const items = runs.map(({ repo: _repo, url: _url, ...run }) => run);
    const page = toPage(items, total, window, query);
    return total === 0
      ? { ...page, note: `No runs stored for ${repo} match: call sync_runs to pull recent runs` }
      : page;
  },
});
