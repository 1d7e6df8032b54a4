import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, spawnServer } from '@shipyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from './fake-github.js';
import { bin, binArgs, connectPipelines, engine, openStore, REPO, TOKEN } from './helpers.js';
import { seedHistory } from './scenario.js';

// Needs the built bin (the package's test script builds first).

const SOURCES = 20;

let dir: string;
let fake: FakeGitHub;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shipyard-pipelines-race-'));
  fake = await new FakeGitHub().start();
  seedHistory(fake);
});
afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const report = (source: string) => ({
  repo: REPO,
  source,
  commit: 'abc1234',
  run_id: 7,
  seen_at: '2026-03-02T08:00:00.000Z',
  results: [{ suite: 's', name: source, status: 'failed' as const, duration_ms: 1, message: 'boom' }],
  once: true,
});

describe(`one artifact's report saved by two connections at once (${engine})`, () => {
  it('is stored once: one save stores it, the other finds it stored', async () => {
    const data = join(dir, 'stores');
    const one = await openStore(data);
    const two = await openStore(data);
    try {
      const sources = Array.from({ length: SOURCES }, (_, i) => `artifact junit (${i}): app.xml`);
      // Both connections' transactions on each source start together.
      const saved = await Promise.all(
        sources.map((source) =>
          Promise.all([one.store.saveReport(report(source)), two.store.saveReport(report(source))]),
        ),
      );
      for (const [a, b] of saved) {
        expect([a.stored, b.stored].sort()).toEqual([false, true]);
        expect(a.id).toBe(b.id);
      }
      const failed = await one.store.failedTests(7);
      expect(failed.map((test) => test.name).sort()).toEqual([...sources].sort());
    } finally {
      await one.close();
      await two.close();
    }
  });
});

interface Summary {
  failed_tests_total: number;
}
interface Flaky {
  total: number;
}

it(`two processes syncing the same runs at once store each artifact's report once (${engine})`, async () => {
  // What one sync alone stores, as the reference.
  const alone = await connectPipelines({ fake });
  let expected: { reports: number; failed: number; flaky: number };
  try {
    expected = {
      reports: (await callOk<{ reports: number }>(alone.client, 'sync_runs', {})).reports,
      failed: (await callOk<Summary>(alone.client, 'get_failure_summary', { run: 101, fetch_logs: false }))
        .failed_tests_total,
      flaky: (await callOk<Flaky>(alone.client, 'find_flaky_tests', {})).total,
    };
  } finally {
    await alone.client.close();
  }
  const args = [...(await binArgs(join(dir, 'bins'))), '--repo', REPO];
  const env = { GITHUB_API_URL: fake.url, GITHUB_TOKEN: TOKEN };
  const clients = await Promise.all([spawnServer(bin, args, { env }), spawnServer(bin, args, { env })]);
  try {
    const synced = (await Promise.all(
      clients.map((client) => callOk<{ reports: number }>(client, 'sync_runs', {})),
    )) as [{ reports: number }, { reports: number }];
    const first = clients[0];
    // Each report stored once, and counted by the one sync that stored it.
    expect(expected.reports).toBeGreaterThan(0);
    expect(synced[0].reports + synced[1].reports).toBe(expected.reports);
    const summary = await callOk<Summary>(first, 'get_failure_summary', { run: 101, fetch_logs: false });
    expect(summary.failed_tests_total).toBe(expected.failed);
    expect((await callOk<Flaky>(first, 'find_flaky_tests', {})).total).toBe(expected.flaky);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}, 30_000);
