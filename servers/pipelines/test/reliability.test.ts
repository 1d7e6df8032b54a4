import { type CrashSafetyAdapter, callOk, checkCrashSafety, crashSafetyTitle } from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeGitHub } from './fake-github.js';
import { bin, databaseUrlFor, engine, onPostgres, REPO, TOKEN } from './helpers.js';
import { seedHistory } from './scenario.js';

// Needs the built bin (the package's test script builds first).

/** A synced run of the fake's history that the reports are ingested for. */
const RUN = 102;

let fake: FakeGitHub;
// On PostgreSQL every round restarts on one database, made before the run.
let databaseUrl = '';
beforeAll(async () => {
  if (onPostgres) databaseUrl = await databaseUrlFor();
  fake = await new FakeGitHub().start();
  seedHistory(fake);
});
afterAll(async () => {
  await fake.stop();
});

interface Summary {
  failed_tests: Array<{ suite: string; name: string; message: string }>;
  failed_tests_total: number;
}

const adapter: CrashSafetyAdapter = {
  bin,
  args: (dataDir) => [
    ...(onPostgres ? ['--database-url', databaseUrl] : ['--data-dir', dataDir]),
    '--repo',
    REPO,
  ],
  // Read when the run starts, once the fake listens.
  get env() {
    return { GITHUB_API_URL: fake.url, GITHUB_TOKEN: TOKEN };
  },
  setup: async (client) => {
    await callOk(client, 'sync_runs', {});
  },
  // One report per item: one failed test named by the item's word, whose message is the item's text.
  write: async (client, item) => {
    const xml =
      `<testsuite name="crash" tests="1" failures="1"><testcase classname="crash" name="${item.word}">` +
      `<failure message="${item.text}"/></testcase></testsuite>`;
    const saved = await callOk<{ failed: number }>(client, 'ingest_test_report', { content: xml, run: RUN });
    if (saved.failed !== 1) throw new Error(`the report of ${item.word} counted ${saved.failed} failures`);
    return item.word;
  },
  list: async (client) => {
    const summary = await callOk<Summary>(client, 'get_failure_summary', {
      run: RUN,
      fetch_logs: false,
      max_bytes: 100_000,
    });
    if (summary.failed_tests.length !== summary.failed_tests_total) {
      throw new Error(
        `the summary lists ${summary.failed_tests.length} of ${summary.failed_tests_total} tests`,
      );
    }
    return summary.failed_tests.map((test) => ({ id: test.name, text: test.message }));
  },
  search: { none: 'pipelines keeps no search index over reports (search_job_logs scans one job log)' },
};

it(`${crashSafetyTitle(adapter)} (${engine})`, async () => {
  const rounds = await checkCrashSafety(adapter);
  expect(rounds.every((round) => round.inFlightAtKill > 0)).toBe(true);
}, 60_000);
