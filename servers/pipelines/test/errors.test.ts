import { type Connected, callError, callOk } from '@shipyard/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from './fake-github.js';
import { connectPipelines, TOKEN } from './helpers.js';
import { seedHistory } from './scenario.js';

let fake: FakeGitHub;
let client: Connected;
let logs: string[];
/** Every answer the tests got, to check none holds the token. */
const answers: string[] = [];

beforeAll(async () => {
  fake = await new FakeGitHub().start();
});
afterAll(async () => {
  await fake.stop();
  expect(answers.length).toBeGreaterThan(5);
  expect(answers.join('\n')).not.toContain(TOKEN);
  expect(answers.join('\n')).not.toContain(TOKEN.slice(4, 20));
});
beforeEach(async () => {
  fake.clearFaults();
  seedHistory(fake);
  fake.logs.set(1002, 'Error: short log\n');
  logs = [];
  ({ client } = await connectPipelines({ fake, logs }));
});
afterEach(async () => {
  await client.close();
  expect(logs.join('\n')).not.toContain(TOKEN);
});

async function failing(tool: string, args: Record<string, unknown>, code: Parameters<typeof callError>[3]) {
  const error = await callError(client, tool, args, code);
  answers.push(JSON.stringify(error));
  return error;
}

describe('GitHub failures become errors that say what to do', () => {
  it('a primary rate limit (403, remaining 0) is upstream and says when to retry', async () => {
    fake.fault(/\/actions\/workflows$/, { status: 403, rateLimited: true, resetInSeconds: 600 });
    const error = await failing('sync_runs', {}, 'upstream');
    const reset = /retry after (\S+) \(in (\d+) s\)/.exec(error.message);
    expect(reset).not.toBeNull();
    expect(Math.abs(Number(reset?.[2]) - 600)).toBeLessThanOrEqual(2);
    expect(Math.abs(Date.parse(reset?.[1] ?? '') - (Date.now() + 600_000))).toBeLessThan(3_000);
    expect(error.hint).toContain('GITHUB_TOKEN');
  });

  it('a 429 with retry-after is upstream with that wait', async () => {
    fake.fault(/\/actions\/workflows$/, { status: 429, rateLimited: true, resetInSeconds: 45 });
    const error = await failing('list_workflows', {}, 'upstream');
    expect(error.message).toMatch(/rate limit is reached \(429\).*\(in 4[4-6] s\)/);
  });

  it('a limit that resets within two seconds is waited for once, then the call succeeds', async () => {
    fake.fault(/\/actions\/workflows$/, { status: 429, rateLimited: true, resetInSeconds: 1 }, 1);
    const ok = await callOk<{ workflows: unknown[] }>(client, 'list_workflows', {});
    expect(ok.workflows).toHaveLength(1);
  });

  it('401 is forbidden and names the token settings', async () => {
    fake.fault(/\/actions\/workflows$/, { status: 401 });
    const error = await failing('sync_runs', {}, 'forbidden');
    expect(error.message).toContain('401');
    expect(error.hint).toContain('GITHUB_TOKEN (or --token-file)');
  });

  it('403 without a rate limit is forbidden and names the permission', async () => {
    await callOk(client, 'sync_runs', {});
    fake.fault(/\/rerun$/, { status: 403 });
    const error = await failing('rerun_run', { run: 101 }, 'forbidden');
    expect(error.hint).toContain('Actions write');
  });

  it('404 is not found', async () => {
    await callOk(client, 'sync_runs', {});
    fake.logs.delete(1004);
    const error = await failing('get_job_log', { job: 1004 }, 'not_found');
    expect(error.message).toContain('404');
  });

  it('a dropped connection is upstream after the retries', async () => {
    fake.fault(/\/actions\/workflows$/, { drop: true });
    const error = await failing('list_workflows', { refresh: true }, 'upstream');
    expect(error.message).toContain('could not be reached');
    expect(error.hint).toContain('Retry');
  });

  it('a dropped connection once is retried and the call succeeds', async () => {
    fake.fault(/\/actions\/workflows$/, { drop: true }, 1);
    expect((await callOk<{ workflows: unknown[] }>(client, 'list_workflows', {})).workflows).toHaveLength(1);
  });

  it('an API that is down entirely is upstream', async () => {
    const down = await new FakeGitHub().start();
    await down.stop();
    const { client: offline } = await connectPipelines({ fake: down, logs });
    try {
      const error = await callError(offline, 'list_workflows', {}, 'upstream');
      answers.push(JSON.stringify(error));
      expect(error.message).toContain('could not be reached');
    } finally {
      await offline.close();
    }
  });

  it("a failure in one run's artifact is reported and the sync goes on", async () => {
    fake.fault(/\/artifacts\/9002\/zip$/, { status: 404 });
    const synced = await callOk<{ runs: number; reports: number; problems: string[] }>(
      client,
      'sync_runs',
      {},
    );
    answers.push(JSON.stringify(synced));
    expect([synced.runs, synced.reports]).toEqual([3, 2]);
    expect(synced.problems).toEqual([
      expect.stringMatching(/^artifact junit-results of run 102: GitHub has no such thing \(404\)/),
    ]);
  });

  it('sends no token when none is set', async () => {
    const { client: anonymous } = await connectPipelines({ fake, token: undefined });
    try {
      fake.requests = [];
      await callOk(anonymous, 'list_workflows', {});
      expect(fake.requests[0]?.authorization).toBeUndefined();
    } finally {
      await anonymous.close();
    }
  });

  it('asks for a repo when none is configured', async () => {
    const { client: bare } = await connectPipelines({ fake, repo: undefined });
    try {
      const error = await callError(bare, 'list_runs', {}, 'invalid_input');
      expect(error.hint).toContain('--repo');
    } finally {
      await bare.close();
    }
  });
});
