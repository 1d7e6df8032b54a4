// A scripted history on the fake API, with the answers the tests expect worked out by hand.

import type { FakeGitHub } from './fake-github.js';
import { at, junit, zip } from './helpers.js';

export const WORKFLOW = { id: 161335, name: 'CI', path: '.github/workflows/ci.yml' };
export const SHA_A = 'aaaa111122223333444455556666777788889999';
export const SHA_B = 'bbbb111122223333444455556666777788889999';

/** Line (1-based) of the one error in the big log of job 1002. */
export const ERROR_LINE = 41_235;
export const LOG_LINES = 50_000;

/** A 50,000-line log with timestamps and colours, whose only error is on ERROR_LINE. */
export function bigLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= LOG_LINES; i++) {
    const stamp = `2026-03-02T08:${String(Math.floor(i / 1000) % 60).padStart(2, '0')}:00.0000000Z`;
    if (i === ERROR_LINE) lines.push(`${stamp} \u001b[31mError: Cannot find module './pricing'\u001b[0m`);
    else if (i === ERROR_LINE + 1)
      lines.push(`${stamp}     at require (node:internal/modules/cjs/loader:1:1)`);
    else lines.push(`${stamp} \u001b[32mok\u001b[0m step output line ${i}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Run 101 on commit A fails (job test, step "Run tests"; test app.b fails); run 102 reruns commit A and passes;
 * run 103 on commit B passes. So: test app.b failed then passed on A (flaky), ran on A and B: flip rate 1/2,
 * 3 results. Job "test" failed then passed on A: flaky on 1 of 2 commits.
 */
export function seedHistory(fake: FakeGitHub): void {
  fake.workflows = [WORKFLOW];
  fake.runs = [
    { id: 101, head_sha: SHA_A, conclusion: 'failure', created_at: at(0), updated_at: at(10) },
    { id: 102, head_sha: SHA_A, conclusion: 'success', created_at: at(30), updated_at: at(40) },
    {
      id: 103,
      head_sha: SHA_B,
      head_branch: 'feature',
      event: 'pull_request',
      conclusion: 'success',
      created_at: at(60),
      updated_at: at(72),
    },
  ];
  const steps = (failed: boolean, start: number) => [
    {
      number: 1,
      name: 'Set up job',
      conclusion: 'success',
      started_at: at(start),
      completed_at: at(start + 1),
    },
    {
      number: 2,
      name: 'Run tests',
      conclusion: failed ? 'failure' : 'success',
      started_at: at(start + 1),
      completed_at: at(start + 8),
    },
  ];
  fake.jobs = [
    {
      id: 1001,
      run_id: 101,
      name: 'build',
      conclusion: 'success',
      created_at: at(0),
      started_at: at(1),
      completed_at: at(5),
    },
    {
      id: 1002,
      run_id: 101,
      name: 'test',
      conclusion: 'failure',
      created_at: at(0),
      started_at: at(1),
      completed_at: at(9),
      steps: steps(true, 1),
    },
    { id: 1003, run_id: 102, name: 'build', conclusion: 'success', started_at: at(31), completed_at: at(35) },
    {
      id: 1004,
      run_id: 102,
      name: 'test',
      conclusion: 'success',
      started_at: at(31),
      completed_at: at(39),
      steps: steps(false, 31),
    },
    { id: 1005, run_id: 103, name: 'test', conclusion: 'success', started_at: at(61), completed_at: at(71) },
  ];
  fake.logs.set(1002, bigLog());
  fake.logs.set(1004, 'all good\n');
  fake.artifacts.set(101, [
    { id: 9001, name: 'junit-results', zip: zip({ 'reports/app.xml': junit({ a: 'passed', b: 'failed' }) }) },
  ]);
  fake.artifacts.set(102, [
    { id: 9002, name: 'junit-results', zip: zip({ 'reports/app.xml': junit({ a: 'passed', b: 'passed' }) }) },
  ]);
  fake.artifacts.set(103, [
    { id: 9003, name: 'coverage', zip: zip({ 'cov.xml': '<coverage/>' }) },
    {
      id: 9004,
      name: 'py-test-results',
      zip: zip({ 'app.xml': junit({ a: 'passed', b: 'passed' }), 'notes.txt': 'x' }),
    },
  ]);
}
