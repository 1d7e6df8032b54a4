#!/usr/bin/env node
// `pnpm test`: run every package's tests through turbo, then sum the vitest JSON reports into one line.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const reports = () =>
  ['packages', 'servers', 'tooling']
    .flatMap((group) => {
      const dir = join(root, group);
      return existsSync(dir)
        ? readdirSync(dir).map((name) => join(dir, name, '.vitest', 'results.json'))
        : [];
    })
    .filter((file) => existsSync(file));

for (const file of reports()) rmSync(file);

// Each vitest already runs its files on every CPU, and many tests start processes: packages running side by
// side on top of that overload a small machine until tests time out. Half the CPUs (at least one) run at once.
const args = ['exec', 'turbo', 'run', 'test', '--continue', '--concurrency=50%', ...process.argv.slice(2)];
const run = spawnSync('pnpm', args, {
  cwd: root,
  stdio: 'inherit',
  env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
});

// SHIPYARD_EXTRA_REPORTS: more vitest JSON reports to count (CI's generated throwaway server), colon-separated.
const extra = (process.env.SHIPYARD_EXTRA_REPORTS ?? '')
  .split(':')
  .filter((file) => file && existsSync(file));

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of [...reports(), ...extra]) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A test file that failed to load has no failed test in it: count it as one failure so it cannot hide.
  failed += report.testResults.filter(
    (suite) => suite.status === 'failed' && !suite.assertionResults.some((test) => test.status === 'failed'),
  ).length;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
const status = run.status ?? 1;
// A build or task that failed before its tests ran leaves no report: never print "0 failed" for it.
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(status);
