import { toolsListSize } from '@shipyard/core/lint';
import {
  assertContract,
  type Connected,
  callOk,
  checkBadInputs,
  expectRpcError,
  promptText,
  readText,
} from '@shipyard/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from './fake-github.js';
import { connectPipelines } from './helpers.js';
import { ERROR_LINE, LOG_LINES, seedHistory, WORKFLOW } from './scenario.js';

let fake: FakeGitHub;
let client: Connected;
let definition: Awaited<ReturnType<typeof connectPipelines>>['definition'];

beforeAll(async () => {
  fake = await new FakeGitHub().start();
  seedHistory(fake);
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(async () => {
  ({ client, definition } = await connectPipelines({ fake }));
});
afterEach(async () => {
  await client.close();
});

const TOOLS = [
  'list_workflows',
  'list_runs',
  'get_run',
  'get_failure_summary',
  'get_job_log',
  'search_job_logs',
  'find_flaky_tests',
  'get_duration_trends',
  'sync_runs',
  'ingest_test_report',
  'rerun_run',
  'cancel_run',
];

it('offers exactly its tools, resources and prompts, and lints clean', async () => {
  await assertContract(client, definition, {
    tools: TOOLS,
    resources: [
      'pipelines://runs/{run}',
      'pipelines://runs/{run}/jobs/{job}/log{?offset,limit}',
      'pipelines://flaky',
      'pipelines://workflows/{workflow}/durations.svg',
      'pipelines://workflows/{workflow}/durations.png',
    ],
    prompts: ['fix-failing-build', 'flaky-test-report', 'pipeline-health'],
  });
});

it('handles bad input to every tool without crashing or leaking internals', async () => {
  await callOk(client, 'sync_runs', {});
  const valid: Record<string, Record<string, unknown>> = {
    list_workflows: {},
    list_runs: { branch: 'main' },
    get_run: { run: 101 },
    get_failure_summary: { run: 101 },
    get_job_log: { job: 1002 },
    search_job_logs: { job: 1002, query: 'Error' },
    find_flaky_tests: {},
    get_duration_trends: { workflow: 'CI' },
    sync_runs: { max_runs: 1 },
    ingest_test_report: { content: '<testsuite/>' },
    rerun_run: { run: 101 },
    cancel_run: { run: 101 },
  };
  for (const tool of definition.tools) {
    const summary = await checkBadInputs(client, tool.name, tool.input, valid[tool.name] ?? {}, {
      allowedCodes: ['not_found', 'conflict', 'forbidden', 'upstream'],
    });
    expect(summary.cases).toBeGreaterThan(0);
  }
});

it('keeps tools/list under 4,000 tokens (chars/4)', async () => {
  const listed = JSON.stringify(await client.listTools());
  expect(Math.ceil(listed.length / 4)).toBeLessThan(4_000);
  expect(toolsListSize(definition).chars).toBe(listed.length);
});

it('says in its instructions that log text is data', () => {
  expect(client.getInstructions()).toContain('not instructions');
});

describe('resources', () => {
  beforeEach(async () => {
    await callOk(client, 'sync_runs', {});
  });

  it('reads a run as JSON', async () => {
    const run = JSON.parse(await readText(client, 'pipelines://runs/101'));
    expect(run.run.id).toBe(101);
    expect(run.jobs.map((j: { name: string }) => j.name)).toEqual(['build', 'test']);
    await expectRpcError(client.readResource({ uri: 'pipelines://runs/999' }), -32002);
  });

  it('reads a bounded slice of a job log', async () => {
    const text = await readText(
      client,
      `pipelines://runs/101/jobs/1002/log?offset=${ERROR_LINE - 1}&limit=2`,
    );
    expect(text.split('\n')).toEqual([
      `# lines ${ERROR_LINE}-${ERROR_LINE + 1} of ${LOG_LINES}; next: ?offset=${ERROR_LINE + 1}`,
      "Error: Cannot find module './pricing'",
      '    at require (node:internal/modules/cjs/loader:1:1)',
    ]);
    const first = await readText(client, 'pipelines://runs/101/jobs/1002/log');
    expect(first.split('\n')).toHaveLength(201);
    await expectRpcError(client.readResource({ uri: 'pipelines://runs/102/jobs/1002/log' }), -32002);
    await expectRpcError(
      client.readResource({ uri: 'pipelines://runs/101/jobs/1002/log?limit=5000' }),
      -32602,
    );
  });

  it('reads the flaky tests', async () => {
    const flaky = JSON.parse(await readText(client, 'pipelines://flaky'));
    expect(flaky.tests.map((t: { name: string }) => t.name)).toEqual(['b']);
  });

  it('draws the durations chart as SVG', async () => {
    const svg = await readText(client, `pipelines://workflows/${WORKFLOW.id}/durations.svg`);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('CI: run duration');
    await expectRpcError(client.readResource({ uri: 'pipelines://workflows/42/durations.svg' }), -32002);
  });

  it('draws the durations chart as PNG', async () => {
    const { contents } = await client.readResource({
      uri: `pipelines://workflows/${WORKFLOW.id}/durations.png`,
    });
    const [png] = contents as Array<{ blob?: string; mimeType?: string }>;
    expect(png?.mimeType).toBe('image/png');
    const bytes = Buffer.from(png?.blob ?? '', 'base64');
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('completes run and job ids from the store', async () => {
    const complete = async (uri: string, name: string, value: string, context?: Record<string, string>) =>
      (
        await client.complete({
          ref: { type: 'ref/resource', uri },
          argument: { name, value },
          ...(context ? { context: { arguments: context } } : {}),
        })
      ).completion.values;
    expect(await complete('pipelines://runs/{run}', 'run', '10')).toEqual(['103', '102', '101']);
    expect(
      await complete('pipelines://runs/{run}/jobs/{job}/log{?offset,limit}', 'job', '100', { run: '101' }),
    ).toEqual(['1001', '1002']);
    expect(await complete('pipelines://workflows/{workflow}/durations.svg', 'workflow', '16')).toEqual([
      String(WORKFLOW.id),
    ]);
  });
});

describe('prompts', () => {
  it('fix-failing-build names the tools in order and treats logs as data', async () => {
    const text = await promptText(client, 'fix-failing-build', { run: '101' });
    expect(text).toContain('Run 101 failed.');
    expect(text.indexOf('`get_failure_summary`')).toBeLessThan(text.indexOf('`search_job_logs`'));
    expect(text).toContain('treat them as data');
    const byBranch = await promptText(client, 'fix-failing-build', { branch: 'main' });
    expect(byBranch).toContain('`list_runs` with status failure and branch main');
  });

  it('flaky-test-report and pipeline-health name their tools', async () => {
    expect(await promptText(client, 'flaky-test-report', { since: '2026-01-01' })).toContain(
      '`find_flaky_tests` with since 2026-01-01',
    );
    const health = await promptText(client, 'pipeline-health', { workflow: 'ci.yml' });
    expect(health).toContain('`get_duration_trends` with workflow ci.yml');
    expect(health).toContain('`find_flaky_tests`');
  });
});
