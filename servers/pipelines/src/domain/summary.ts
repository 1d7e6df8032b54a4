// The failure summary of a run: what failed, where in the logs, which tests; bounded in bytes.
import type { TestResult } from './junit.js';
import { clip, type Excerpt } from './logs.js';
import type { Job, LogIndex, Run } from './model.js';

export const DEFAULT_MAX_BYTES = 8_000;

export type SummaryJob = {
  id: number;
  name: string;
  conclusion: string | null;
  failed_steps: string[];
  /** cached: the log was read; missing: not cached and not fetched (see `more`). */
  log: 'cached' | 'missing';
  error_lines_total: number;
  excerpts: Excerpt[];
};

export type FailureSummary = {
  run: {
    id: number;
    workflow: string;
    branch: string | null;
    commit: string;
    conclusion: string | null;
    url: string;
  };
  failed_jobs: SummaryJob[];
  failed_tests: Array<Pick<TestResult, 'suite' | 'name' | 'message'>>;
  failed_tests_total: number;
  /** What was left out to stay under max_bytes; empty when nothing was. */
  cut: string[];
  /** How to read what was cut. */
  more: string[];
};

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Lines of an excerpt clipped to 300 characters each: one minified line must not take the whole budget. */
function compact(excerpt: Excerpt): Excerpt {
  return {
    ...excerpt,
    text: excerpt.text
      .split('\n')
      .map((line) => clip(line, 300))
      .join('\n'),
  };
}

/**
 * A failure summary within `maxBytes` of JSON: the run and its failed jobs and steps always; then, while
 * they fit, the first excerpt of each failed job, the failed tests, and the other excerpts. What does not
 * fit is counted in `cut`, and `more` names the calls that read it.
 */
export function failureSummary(
  run: Run,
  jobs: readonly Job[],
  logs: ReadonlyMap<number, LogIndex>,
  failedTests: readonly TestResult[],
  maxBytes: number,
): FailureSummary {
  const failed = jobs.filter((job) => job.conclusion === 'failure' || job.conclusion === 'timed_out');
  const summary: FailureSummary = {
    run: {
      id: run.id,
      workflow: run.workflow,
      branch: run.branch,
      commit: run.commit,
      conclusion: run.conclusion,
      url: run.url,
    },
    failed_jobs: failed.map((job) => ({
      id: job.id,
      name: job.name,
      conclusion: job.conclusion,
      failed_steps: job.steps.filter((s) => s.conclusion === 'failure').map((s) => s.name),
      log: logs.has(job.id) ? 'cached' : 'missing',
      error_lines_total: logs.get(job.id)?.error_total ?? 0,
      excerpts: [],
    })),
    failed_tests: [],
    failed_tests_total: failedTests.length,
    cut: [],
    more: [],
  };
  // Room kept for the cut and more notes written at the end.
  let used = bytes(summary) + 600;
  const fits = (piece: unknown) => {
    const size = bytes(piece) + 1;
    if (used + size > maxBytes) return false;
    used += size;
    return true;
  };
  const pending = summary.failed_jobs.map((job) => [...(logs.get(job.id)?.excerpts ?? [])].map(compact));
  let excerptsCut = 0;
  const addExcerpts = (max: number) => {
    summary.failed_jobs.forEach((job, i) => {
      const queue = pending[i] as Excerpt[];
      let taken = 0;
      while (queue.length > 0 && taken < max) {
        const excerpt = queue[0] as Excerpt;
        if (!fits(excerpt)) break;
        job.excerpts.push(excerpt);
        queue.shift();
        taken++;
      }
    });
  };
  addExcerpts(1);
  let testsCut = 0;
  for (const test of failedTests) {
    const item = { suite: test.suite, name: test.name, message: clip(test.message, 500) };
    if (testsCut === 0 && fits(item)) summary.failed_tests.push(item);
    else testsCut++;
  }
  addExcerpts(Number.POSITIVE_INFINITY);
  excerptsCut = pending.reduce((sum, queue) => sum + queue.length, 0);
  const missing = summary.failed_jobs.filter((job) => job.log === 'missing');
  if (excerptsCut > 0) {
    summary.cut.push(`${excerptsCut} more error excerpt(s)`);
    summary.more.push('search_job_logs with the job id finds error lines; get_job_log reads a slice by line');
  }
  const hidden = summary.failed_jobs.reduce(
    (sum, job) =>
      sum + Math.max(0, job.error_lines_total - job.excerpts.reduce((n, e) => n + e.error_lines.length, 0)),
    0,
  );
  if (hidden > 0 && excerptsCut === 0) {
    summary.cut.push(`${hidden} later error line(s) not excerpted`);
    summary.more.push('search_job_logs with the job id and query "Error" lists them');
  }
  if (testsCut > 0) {
    summary.cut.push(`${testsCut} failed test(s)`);
    summary.more.push('find_flaky_tests tells flaky tests from real failures; raise max_bytes to list more');
  }
  if (missing.length > 0) {
    summary.more.push(
      `No cached log for job(s) ${missing.map((job) => job.id).join(', ')}: sync_runs or get_job_log fetches it`,
    );
  }
  return summary;
}
