import { z } from '@shipyard/core';
import { type PipelinesDeps, tool } from '../deps.js';
import { FLAKY_URI, type Run } from '../domain/model.js';
import { globs } from '../domain/repo.js';
import { load } from '../load.js';
import { fetchLog, fields, ingest, repoOf } from './shared.js';

type Fflate = typeof import('fflate');
let fflate: Fflate | undefined;

/** Most XML bytes read from one artifact. */
const MAX_REPORT_BYTES = 20_000_000;

export default tool({
  name: 'sync_runs',
  title: 'Sync runs from GitHub',
  description:
    'Pull recent workflow runs of a repo from GitHub into the local store (repo, max_runs): runs, jobs and steps, ' +
    "failed jobs' logs (logs) and JUnit reports from artifacts named like --junit-artifact (reports). Incremental: " +
    'stops at runs already synced. Reports progress; cancellable. Returns counts. Use this before list_runs or ' +
    'find_flaky_tests.',
  input: {
    repo: fields.repo,
    max_runs: z.number().int().min(1).max(1_000).optional().describe('Most runs to look at (default 50)'),
    logs: z.boolean().optional().describe("Cache failed jobs' logs (default true)"),
    reports: z.boolean().optional().describe('Ingest JUnit artifacts (default true)'),
  },
  output: {
    repo: z.string(),
    runs: z.number().describe('Runs new or changed'),
    jobs: z.number(),
    logs: z.number().describe('Logs cached'),
    reports: z.number().describe('Reports ingested'),
    tests: z.number().describe('Test results ingested'),
    problems: z.array(z.string()).describe('What could not be fetched'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    const { deps } = ctx;
    const repo = repoOf(input.repo, deps);
    const max = input.max_runs ?? 50;
    const signal = ctx.signal;
    await deps.store.saveWorkflows(await deps.github.listWorkflows(repo, signal));
    const todo: Run[] = [];
    let seen = 0;
    for await (const page of deps.github.runs(repo, signal)) {
      let known = 0;
      for (const run of page) {
        if (seen >= max) break;
        seen++;
        const stored = await deps.store.getRun(run.id);
        const same =
          stored &&
          stored.status === 'completed' &&
          stored.attempt === run.attempt &&
          stored.status === run.status;
        if (same) known++;
        else todo.push(run);
      }
      // A page of runs all synced before: the older ones were synced then too.
      if (seen >= max || page.length === 0 || known === page.length) break;
    }
    const counts = { runs: 0, jobs: 0, logs: 0, reports: 0, tests: 0 };
    const problems: string[] = [];
    const changed = new Set<string>();
    // Oldest first: an interrupted sync leaves no gap behind the newest run it stored.
    todo.reverse();
    for (const [i, run] of todo.entries()) {
      signal.throwIfAborted();
      await ctx.progress(i, todo.length, `run ${run.id} (${i + 1} of ${todo.length})`);
      const jobs = await deps.github.listJobs(repo, run.id, signal);
      for (const uri of await deps.store.saveRuns([{ run, jobs }])) changed.add(uri);
      counts.runs++;
      counts.jobs += jobs.length;
      if (run.status !== 'completed') continue;
      if (input.logs !== false) {
        for (const job of jobs) {
          if (job.conclusion !== 'failure' || (await deps.store.hasLog(job.id))) continue;
          try {
            await fetchLog(deps, { id: job.id, repo }, signal);
            counts.logs++;
          } catch (error) {
            if (signal.aborted) throw error;
            problems.push(`log of job ${job.id}: ${(error as Error).message}`);
          }
        }
      }
      if (input.reports !== false) {
        const got = await syncReports(deps, run, signal, problems);
        counts.reports += got.reports;
        counts.tests += got.tests;
        if (got.reports > 0) changed.add(FLAKY_URI);
      }
    }
    if (todo.length > 0) await ctx.progress(todo.length, todo.length, 'done');
    ctx.changed(...changed);
    return { repo, ...counts, problems: problems.slice(0, 20) };
  },
});

/** Ingest the JUnit files of a run's artifacts whose names match the configured patterns. */
async function syncReports(deps: PipelinesDeps, run: Run, signal: AbortSignal, problems: string[]) {
  const wanted = globs(deps.junitArtifacts);
  let reports = 0;
  let tests = 0;
  let artifacts: Awaited<ReturnType<PipelinesDeps['github']['listArtifacts']>>;
  try {
    artifacts = await deps.github.listArtifacts(run.repo, run.id, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    problems.push(`artifacts of run ${run.id}: ${(error as Error).message}`);
    return { reports, tests };
  }
  for (const artifact of artifacts) {
    if (artifact.expired || !wanted(artifact.name)) continue;
    try {
      const zip = await deps.github.downloadArtifact(run.repo, artifact.id, signal);
      fflate ??= load('fflate') as Fflate;
      let size = 0;
      const files = fflate.unzipSync(zip, {
        filter: (file) => {
          size += file.originalSize;
          return file.name.toLowerCase().endsWith('.xml') && size <= MAX_REPORT_BYTES;
        },
      });
      for (const [name, bytes] of Object.entries(files)) {
        const source = `artifact ${artifact.name} (${artifact.id}): ${name}`;
        if (await deps.store.hasReport(run.repo, source)) continue;
        const saved = await ingest(deps, {
          repo: run.repo,
          source,
          xml: Buffer.from(bytes).toString('utf8'),
          commit: run.commit,
          run_id: run.id,
          seen_at: run.finished_at ?? run.started_at ?? run.created_at,
          // Another process syncing the same run may have stored it since the check above.
          once: true,
        });
        if (!saved.stored) continue;
        reports++;
        tests += saved.results.length;
      }
    } catch (error) {
      if (signal.aborted) throw error;
      problems.push(`artifact ${artifact.name} of run ${run.id}: ${(error as Error).message}`);
    }
  }
  return { reports, tests };
}
