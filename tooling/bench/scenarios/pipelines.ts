// @shipyard/pipelines: the failure summary of a run whose 50,000-line log is cached, and flaky tests over
// 5,000 runs of 200 tests each, both against the baseline's echo.

import { join } from 'node:path';
import { migrate, openDatabase } from '@shipyard/db';
import { cleanLog } from '../../../servers/pipelines/src/domain/logs.ts';
import { openPipelinesDatabase } from '../../../servers/pipelines/src/store/sqlite/open.ts';
import { SqlitePipelinesStore } from '../../../servers/pipelines/src/store/sqlite/store.ts';
import { indexLog } from '../../../servers/pipelines/src/tools/shared.ts';
import { defineBench, type SeedContext } from '../src/scenario.ts';

const REPO = 'bench-org/bench-repo';
const LOG_LINES = 50_000;
const RUNS = 5_000;
const TESTS = 200;

export default defineBench({
  coldStartTarget: 0.6,
  scenarios: [
    {
      name: '`get_failure_summary`, cached 50,000-line log',
      seed: seedFailedRun,
      calls: [{ name: 'get_failure_summary', arguments: { run: 1 } }],
      target: 150,
    },
    {
      name: '`find_flaky_tests`, 5,000 runs x 200 tests',
      seed: seedTestHistory,
      calls: [{ name: 'find_flaky_tests', arguments: { repo: REPO } }],
      target: 150,
    },
  ],
});

const migrations = (root: string) => join(root, 'servers/pipelines/drizzle');

function insertRun(sqlite: ReturnType<typeof openDatabase>['sqlite']) {
  return sqlite.prepare(
    `INSERT INTO runs (id, repo, workflow_id, workflow, run_number, branch, commit_sha, event, status, conclusion,
       attempt, created_at, started_at, finished_at, url)
     VALUES (?, '${REPO}', 1, 'CI', ?, 'main', ?, 'push', 'completed', ?, 1, ?, ?, ?, '')`,
  );
}

/** Run 1 failed in job 11, whose log (cached, as sync_runs leaves it) has errors near its end. */
async function seedFailedRun({ dataDir, root, smoke }: SeedContext): Promise<void> {
  const database = openPipelinesDatabase(dataDir, migrations(root));
  try {
    const { sqlite } = database;
    sqlite
      .prepare("INSERT INTO workflows (id, repo, name, path, state) VALUES (1, ?, 'CI', 'ci.yml', 'active')")
      .run(REPO);
    insertRun(sqlite).run(
      1,
      1,
      'a'.repeat(40),
      'failure',
      '2026-03-02T08:00:00Z',
      '2026-03-02T08:00:00Z',
      '2026-03-02T08:10:00Z',
    );
    const steps = JSON.stringify([
      {
        number: 1,
        name: 'Set up job',
        status: 'completed',
        conclusion: 'success',
        started_at: null,
        completed_at: null,
      },
      {
        number: 2,
        name: 'Run tests',
        status: 'completed',
        conclusion: 'failure',
        started_at: null,
        completed_at: null,
      },
    ]);
    sqlite
      .prepare(
        `INSERT INTO jobs (id, run_id, name, status, conclusion, attempt, started_at, completed_at, steps)
         VALUES (?, 1, ?, 'completed', ?, 1, '2026-03-02T08:00:00Z', '2026-03-02T08:09:00Z', ?)`,
      )
      .run(10, 'build', 'success', '[]');
    sqlite
      .prepare(
        `INSERT INTO jobs (id, run_id, name, status, conclusion, attempt, started_at, completed_at, steps)
         VALUES (?, 1, ?, 'completed', ?, 1, '2026-03-02T08:00:00Z', '2026-03-02T08:09:00Z', ?)`,
      )
      .run(11, 'test', 'failure', steps);
    const count = smoke ? 1_000 : LOG_LINES;
    const raw: string[] = [];
    for (let i = 1; i <= count; i++) {
      const stamp = '2026-03-02T08:01:00.0000000Z';
      if (i === count - 500) raw.push(`${stamp} \u001b[31mError: Cannot find module './pricing'\u001b[0m`);
      else if (i === count - 20) raw.push(`${stamp} ##[error]Process completed with exit code 1.`);
      else
        raw.push(
          `${stamp} \u001b[32mPASS\u001b[0m src/module-${i % 300}.test.ts (${i % 97} ms) step output line ${i}`,
        );
    }
    const lines = cleanLog(raw.join('\n'));
    await new SqlitePipelinesStore(() => database).saveLog(
      { job_id: 11, lines },
      indexLog(11, lines),
      200_000_000,
    );
  } finally {
    database.close();
  }
}

/**
 * Runs 1..5,000 in pairs on 2,500 commits (a push and its rerun), each with 200 tests. Tests 0-9 fail in the
 * first run of one commit in ten and pass in the rerun: flaky. Written straight into the tables after the
 * migrations; the server's triggers keep the per-test tallies.
 */
function seedTestHistory({ dataDir, root, smoke }: SeedContext): void {
  const database = openDatabase({ server: 'pipelines', dataDir });
  try {
    migrate(database, migrations(root));
    const { sqlite } = database;
    const runs = smoke ? 100 : RUNS;
    const tests = smoke ? 20 : TESTS;
    sqlite.transaction(() => {
      const run = insertRun(sqlite);
      const test = sqlite.prepare("INSERT INTO tests (id, repo, suite, name) VALUES (?, ?, 'app', ?)");
      const report = sqlite.prepare(
        `INSERT INTO reports (id, repo, source, run_id, commit_sha, ingested_at, tests, failures) VALUES (?, ?, 'bench', ?, ?, ?, ?, 0)`,
      );
      const result = sqlite.prepare(
        `INSERT INTO test_results (test_id, report_id, run_id, commit_sha, status, duration_ms, message, seen_at)
         VALUES (?, ?, ?, ?, ?, 5, ?, ?)`,
      );
      for (let t = 0; t < tests; t++) test.run(t + 1, REPO, `test ${t}`);
      for (let r = 1; r <= runs; r++) {
        const pair = Math.ceil(r / 2);
        const commit = pair.toString(16).padStart(40, '0');
        const time = new Date(Date.parse('2026-01-01T00:00:00Z') + r * 600_000).toISOString();
        const rerun = r % 2 === 0;
        const flakyCommit = pair % 10 === 0;
        run.run(r, r, commit, 'success', time, time, time);
        report.run(r, REPO, r, commit, time, tests);
        for (let t = 0; t < tests; t++) {
          const failed = flakyCommit && !rerun && t < 10;
          result.run(t + 1, r, r, commit, failed ? 'failed' : 'passed', failed ? 'expected true' : '', time);
        }
      }
    })();
  } finally {
    database.close();
  }
}
