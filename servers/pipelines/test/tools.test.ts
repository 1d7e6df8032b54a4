import { type Connected, callError, callOk, checkBadInputs } from '@shipyard/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import searchJobLogs from '../src/tools/search_job_logs.js';
import { FakeGitHub } from './fake-github.js';
import { at, connectPipelines, REPO, TOKEN } from './helpers.js';
import { ERROR_LINE, LOG_LINES, SHA_A, seedHistory, WORKFLOW } from './scenario.js';

let fake: FakeGitHub;
let client: Connected;
let logs: string[];

beforeAll(async () => {
  fake = await new FakeGitHub().start();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(async () => {
  fake.clearFaults();
  fake.requests = [];
  seedHistory(fake);
  logs = [];
  ({ client } = await connectPipelines({ fake, logs }));
});
afterEach(async () => {
  await client.close();
  // The token reaches GitHub and nothing else: no log line holds it.
  expect(logs.join('\n')).not.toContain(TOKEN);
});

interface Synced {
  runs: number;
  jobs: number;
  logs: number;
  reports: number;
  tests: number;
  problems: string[];
}

const sync = (args: Record<string, unknown> = {}) => callOk<Synced>(client, 'sync_runs', args);

describe('sync_runs', () => {
  it("pulls runs, jobs, failed jobs' logs and matching JUnit artifacts, with progress", async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'sync_runs', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p.progress);
      },
    });
    expect(result.structuredContent).toEqual({
      repo: REPO,
      runs: 3,
      jobs: 5,
      logs: 1,
      reports: 3,
      tests: 6,
      problems: [],
    });
    expect(progress).toEqual([0, 1, 2, 3]);
    // The log came by GitHub's redirect, with the token sent to the API.
    expect(fake.requests.some((r) => r.path === '/blobs/logs/1002')).toBe(true);
    expect(fake.requests.find((r) => r.path.endsWith('/actions/runs'))?.authorization).toBe(`token ${TOKEN}`);
    // The coverage artifact does not match *junit* or *test-results*.
    expect(fake.requests.some((r) => r.path === '/blobs/artifacts/9003')).toBe(false);
  });

  it('is incremental: a second sync finds nothing new, a new run only', async () => {
    await sync();
    expect(await sync()).toMatchObject({ runs: 0, reports: 0 });
    fake.runs.push({ id: 104, head_sha: SHA_A, created_at: at(90) });
    expect(await sync()).toMatchObject({ runs: 1, jobs: 0 });
  });

  // Each run costs a request for its jobs: on a busy machine that takes a while.
  it('follows Link headers over pages of runs', { timeout: 120_000 }, async () => {
    fake.runs = Array.from({ length: 101 }, (_, i) => ({ id: 5000 + i, head_sha: SHA_A, created_at: at(i) }));
    fake.artifacts.clear();
    expect(await sync({ max_runs: 500, reports: false })).toMatchObject({ runs: 101 });
    const pages = fake.requests.filter((r) => r.path.endsWith('/actions/runs')).length;
    expect(pages).toBe(2);
    expect((await callOk(client, 'list_runs', { limit: 1 })).total).toBe(101);
  });

  it('stops when the client cancels, keeping the runs already stored', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'sync_runs', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        if (p.progress === 1) controller.abort();
      },
    });
    await expect(call).rejects.toThrow(/abort/i);
    const total = async () => (await callOk<{ total: number }>(client, 'list_runs', {})).total;
    await expect.poll(total).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await total()).toBe(2);
  });

  it('stops at max_runs', async () => {
    expect(await sync({ max_runs: 2 })).toMatchObject({ runs: 2 });
  });
});

describe('list_workflows, list_runs and get_run', () => {
  beforeEach(async () => {
    await sync();
  });

  it('lists workflows with their chart URI', async () => {
    expect(await callOk(client, 'list_workflows', {})).toEqual({
      repo: REPO,
      workflows: [
        {
          id: WORKFLOW.id,
          name: 'CI',
          path: WORKFLOW.path,
          state: 'active',
          chart: `pipelines://workflows/${WORKFLOW.id}/durations.svg`,
        },
      ],
    });
  });

  it('filters runs by workflow, branch, status, commit and event, newest first, in pages', async () => {
    const ids = async (args: Record<string, unknown>) =>
      (await callOk<{ items: Array<{ id: number }> }>(client, 'list_runs', args)).items.map((r) => r.id);
    expect(await ids({})).toEqual([103, 102, 101]);
    expect(await ids({ workflow: 'ci.yml' })).toEqual([103, 102, 101]);
    expect(await ids({ branch: 'feature' })).toEqual([103]);
    expect(await ids({ status: 'failure' })).toEqual([101]);
    expect(await ids({ commit: 'AAAA1111' })).toEqual([102, 101]);
    expect(await ids({ event: 'pull_request' })).toEqual([103]);
    const first = await callOk<{ items: Array<{ id: number }>; next_cursor: string; total: number }>(
      client,
      'list_runs',
      { limit: 2 },
    );
    expect([first.items.length, first.total]).toEqual([2, 3]);
    expect(await ids({ limit: 2, cursor: first.next_cursor })).toEqual([101]);
    await callError(client, 'list_runs', { workflow: 'nope.yml' }, 'not_found');
  });

  it('gets a run with jobs, steps, queue time and durations', async () => {
    const run = await callOk<{
      run: Record<string, unknown>;
      jobs: Array<Record<string, unknown>>;
      failed_tests: number;
    }>(client, 'get_run', { run: 101 });
    expect(run.run).toMatchObject({
      id: 101,
      commit: SHA_A,
      conclusion: 'failure',
      queue_ms: 0,
      duration_ms: 600_000,
    });
    expect(run.jobs[1]).toMatchObject({
      id: 1002,
      name: 'test',
      queue_ms: 60_000,
      duration_ms: 480_000,
      log: 'pipelines://runs/101/jobs/1002/log',
      steps: [
        { number: 1, name: 'Set up job', conclusion: 'success', duration_ms: 60_000 },
        { number: 2, name: 'Run tests', conclusion: 'failure', duration_ms: 420_000 },
      ],
    });
    expect(run.failed_tests).toBe(1);
    const missing = await callError(client, 'get_run', { run: 999 }, 'not_found');
    expect(missing.hint).toContain('sync_runs');
  });
});

describe('logs', () => {
  beforeEach(async () => {
    await sync();
  });

  it('summarizes a failure: finds the error line in a 50,000-line log and stays under max_bytes', async () => {
    for (const max of [8_000, 2_000]) {
      const result = await client.callTool({
        name: 'get_failure_summary',
        arguments: { run: 101, max_bytes: max },
      });
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(max);
      const summary = result.structuredContent as {
        failed_jobs: Array<{
          id: number;
          failed_steps: string[];
          excerpts: Array<{ error_lines: number[]; text: string }>;
        }>;
        failed_tests: Array<{ suite: string; name: string }>;
      };
      expect(summary.failed_jobs.map((j) => [j.id, j.failed_steps])).toEqual([[1002, ['Run tests']]]);
      expect(summary.failed_jobs[0]?.excerpts[0]?.error_lines).toEqual([ERROR_LINE]);
      // Cleaned: no timestamp, no colour codes.
      expect(summary.failed_jobs[0]?.excerpts[0]?.text).toContain(
        "\nError: Cannot find module './pricing'\n",
      );
      expect(summary.failed_tests).toEqual([{ suite: 'app', name: 'b', message: 'boom\nstack' }]);
    }
  });

  it('fetches a log missing from the cache on demand', async () => {
    const { client: fresh } = await connectPipelines({ fake });
    try {
      await callOk(fresh, 'sync_runs', { logs: false });
      const summary = await callOk<{ failed_jobs: Array<{ log: string }> }>(fresh, 'get_failure_summary', {
        run: 101,
      });
      expect(summary.failed_jobs[0]?.log).toBe('cached');
      const without = await callOk<{ failed_jobs: Array<{ log: string }>; more: string[] }>(
        fresh,
        'get_failure_summary',
        {
          run: 101,
          fetch_logs: false,
        },
      );
      expect(without.failed_jobs[0]?.log).toBe('cached');
    } finally {
      await fresh.close();
    }
  });

  it('reads a slice of a log by line offset and limit', async () => {
    const slice = await callOk<{ lines: string[]; total_lines: number; next_offset: number | null }>(
      client,
      'get_job_log',
      {
        job: 1002,
        offset: ERROR_LINE - 2,
        limit: 3,
      },
    );
    expect(slice.lines).toEqual([
      `ok step output line ${ERROR_LINE - 1}`,
      "Error: Cannot find module './pricing'",
      '    at require (node:internal/modules/cjs/loader:1:1)',
    ]);
    expect([slice.total_lines, slice.next_offset]).toEqual([LOG_LINES, ERROR_LINE + 1]);
    const end = await callOk<{ lines: string[]; next_offset: number | null }>(client, 'get_job_log', {
      job: 1002,
      offset: LOG_LINES - 1,
    });
    expect([end.lines.length, end.next_offset]).toEqual([1, null]);
    await callError(client, 'get_job_log', { job: 4242 }, 'not_found');
  });

  it('searches literally, by regex, with context and pages', async () => {
    const literal = await callOk<{
      items: Array<{ line: number; before: string[]; after: string[] }>;
      total: number;
    }>(client, 'search_job_logs', { job: 1002, query: 'cannot find MODULE', context: 1 });
    expect(literal.total).toBe(1);
    expect(literal.items[0]).toMatchObject({
      line: ERROR_LINE,
      before: [`ok step output line ${ERROR_LINE - 1}`],
    });
    const regex = await callOk<{ items: Array<{ line: number }>; total: number; next_cursor: string }>(
      client,
      'search_job_logs',
      {
        job: 1002,
        query: 'line 4999\\d$',
        regex: true,
        limit: 4,
      },
    );
    expect(regex.total).toBe(10);
    expect(regex.items.map((i) => i.line)).toEqual([49_990, 49_991, 49_992, 49_993]);
    const next = await callOk<{ items: Array<{ line: number }> }>(client, 'search_job_logs', {
      job: 1002,
      query: 'line 4999\\d$',
      regex: true,
      limit: 4,
      cursor: regex.next_cursor,
    });
    expect(next.items.map((i) => i.line)).toEqual([49_994, 49_995, 49_996, 49_997]);
    const bad = await callError(
      client,
      'search_job_logs',
      { job: 1002, query: '(?<=x)y', regex: true },
      'invalid_input',
    );
    expect(bad.message).toContain('not a valid RE2 regex');
  });

  it('answers a catastrophic regex on a 100,000-character line at once', async () => {
    fake.logs.set(1004, `${'a'.repeat(100_000)}!\n`);
    const started = performance.now();
    const found = await callOk<{ total: number }>(client, 'search_job_logs', {
      job: 1004,
      query: '(a+)+$',
      regex: true,
    });
    expect(found.total).toBe(0);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('evicts the oldest cached logs over the cap', async () => {
    const { client: small, store } = await connectPipelines({ fake, logCacheBytes: 1 });
    try {
      await callOk(small, 'sync_runs', { logs: false, reports: false });
      await callOk(small, 'get_job_log', { job: 1002 });
      await callOk(small, 'get_job_log', { job: 1004 });
      expect([await store.hasLog(1002), await store.hasLog(1004)]).toEqual([false, true]);
    } finally {
      await small.close();
    }
  });

  it('handles bad input to search_job_logs without crashing', async () => {
    const summary = await checkBadInputs(
      client,
      'search_job_logs',
      searchJobLogs.input,
      { job: 1002, query: 'x' },
      {
        allowedCodes: ['not_found', 'upstream'],
      },
    );
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('find_flaky_tests and get_duration_trends', () => {
  it('finds the test and the job that failed then passed on one commit', async () => {
    await sync();
    const flaky = await callOk<{ items: unknown[]; total: number; jobs: unknown[] }>(
      client,
      'find_flaky_tests',
      {},
    );
    expect(flaky.total).toBe(1);
    expect(flaky.items).toEqual([
      {
        suite: 'app',
        name: 'b',
        runs_seen: 3,
        commits_seen: 2,
        flaky_commits: 1,
        flip_rate: 0.5,
        last_seen: at(72),
        last_flaky: at(40),
      },
    ]);
    expect(flaky.jobs).toEqual([
      { workflow: 'CI', job: 'test', commits_seen: 2, flaky_commits: 1, flip_rate: 0.5, last_flaky: at(39) },
    ]);
    expect((await callOk<{ total: number }>(client, 'find_flaky_tests', { since: at(60) })).total).toBe(0);
  });

  it('counts ingested reports: a pass after a failure on one commit makes it flaky, the reverse order does not', async () => {
    const ingest = (tests: Record<string, 'passed' | 'failed'>, commit: string, finished_at: string) =>
      callOk(client, 'ingest_test_report', {
        content: `<testsuite name="s">${Object.entries(tests)
          .map(
            ([n, s]) => `<testcase name="${n}">${s === 'failed' ? '<failure message="x"/>' : ''}</testcase>`,
          )
          .join('')}</testsuite>`,
        commit,
        finished_at,
      });
    await ingest({ x: 'failed', y: 'passed' }, 'c0ffee1', '2026-03-01T10:00:00Z');
    await ingest({ x: 'passed', y: 'failed' }, 'c0ffee1', '2026-03-01T11:00:00Z');
    await ingest({ x: 'passed', y: 'passed' }, 'c0ffee2', '2026-03-01T12:00:00Z');
    await ingest({ x: 'passed', y: 'passed' }, 'c0ffee3', '2026-03-01T13:00:00Z');
    const flaky = await callOk<{ items: Array<Record<string, unknown>> }>(client, 'find_flaky_tests', {});
    // x: failed then passed on c0ffee1; seen on 3 commits; y passed then failed: not flaky.
    expect(flaky.items).toEqual([
      {
        suite: 's',
        name: 'x',
        runs_seen: 4,
        commits_seen: 3,
        flaky_commits: 1,
        flip_rate: 0.333,
        last_seen: '2026-03-01T13:00:00.000Z',
        last_flaky: '2026-03-01T11:00:00.000Z',
      },
    ]);
  });

  it('flags the day whose p50 run duration regressed against the baseline', async () => {
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    const run = (id: number, daysAgo: number, minutes: number) => ({
      id,
      head_sha: SHA_A,
      created_at: `${day(daysAgo)}T10:00:00Z`,
      updated_at: new Date(Date.parse(`${day(daysAgo)}T10:00:00Z`) + minutes * 60_000).toISOString(),
    });
    // Baseline (8-21 days ago): 10, 12, 14, 16 min, p50 12. Window: 5 days ago 13 and 14 (p50 13, fine);
    // 2 days ago 15, 20 and 30 (p50 20 > 14.4: a regression).
    fake.runs = [
      run(1, 20, 10),
      run(2, 18, 12),
      run(3, 16, 14),
      run(4, 10, 16),
      run(5, 5, 13),
      run(6, 5, 14),
      run(7, 2, 15),
      run(8, 2, 20),
      run(9, 2, 30),
      { ...run(10, 2, 90), conclusion: 'failure' },
    ];
    fake.jobs = [];
    fake.artifacts.clear();
    await sync();
    const trend = await callOk<{
      baseline: unknown;
      points: Array<Record<string, unknown>>;
      regressions: string[];
    }>(client, 'get_duration_trends', { workflow: 'CI', days: 7, baseline_days: 14 });
    const min = 60_000;
    expect(trend.baseline).toEqual({ runs: 4, p50_ms: 12 * min, p95_ms: 16 * min });
    expect(trend.points).toEqual([
      { period: day(5), runs: 2, p50_ms: 13 * min, p95_ms: 14 * min, regression: false },
      { period: day(2), runs: 3, p50_ms: 20 * min, p95_ms: 30 * min, regression: true },
    ]);
    expect(trend.regressions).toEqual([day(2)]);
    await callError(client, 'get_duration_trends', { workflow: 'deploy' }, 'not_found');
  });
});

describe('rerun_run and cancel_run', () => {
  beforeEach(async () => {
    await sync();
  });

  it('reruns all or failed jobs, and cancels a running run', async () => {
    expect(await callOk(client, 'rerun_run', { run: 101, failed_only: true })).toMatchObject({
      run: 101,
      rerun: 'failed',
    });
    expect(
      fake.requests.some((r) => r.method === 'POST' && r.path.endsWith('/runs/101/rerun-failed-jobs')),
    ).toBe(true);
    await callOk(client, 'rerun_run', { run: 102 });
    expect(fake.requests.some((r) => r.method === 'POST' && r.path.endsWith('/runs/102/rerun'))).toBe(true);
    const conflict = await callError(client, 'cancel_run', { run: 103 }, 'conflict');
    expect(conflict.hint).toContain('get_run');
    (fake.runs[2] as { status: string }).status = 'in_progress';
    expect(await callOk(client, 'cancel_run', { run: 103 })).toMatchObject({ run: 103, cancelled: true });
  });

  it('is absent under --read-only, as are the other writers', async () => {
    const { client: readOnly } = await connectPipelines({ fake, readOnly: true });
    try {
      const names = (await readOnly.listTools()).tools.map((t) => t.name);
      for (const name of ['rerun_run', 'cancel_run', 'sync_runs', 'ingest_test_report'])
        expect(names).not.toContain(name);
      await callError(readOnly, 'cancel_run', { run: 101 }, 'forbidden');
    } finally {
      await readOnly.close();
    }
  });
});
