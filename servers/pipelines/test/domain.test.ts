import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bucketOf, durationTrend, percentile } from '../src/domain/durations.js';
import { flipRate } from '../src/domain/flaky.js';
import { parseJUnit } from '../src/domain/junit.js';
import {
  cleanLine,
  cleanLog,
  errorRule,
  excerpts,
  findErrorLines,
  matcher,
  searchLines,
} from '../src/domain/logs.js';
import type { Job, LogIndex, Run } from '../src/domain/model.js';
import { globs, originRepo } from '../src/domain/repo.js';
import { failureSummary } from '../src/domain/summary.js';
import { fixtures } from './helpers.js';

describe('log cleaning and error rules', () => {
  it('strips timestamps and ANSI colour codes', () => {
    expect(cleanLine('2026-03-02T08:00:01.1234567Z \u001b[31mError:\u001b[0m boom\r')).toBe('Error: boom');
    expect(cleanLog('a\nb\n')).toEqual(['a', 'b']);
  });

  it('finds the lines each README rule names, and no others', () => {
    expect(errorRule('##[error]Process completed with exit code 1.')).toBe('annotation');
    expect(errorRule('::error file=a.ts,line=3::bad')).toBe('annotation');
    expect(errorRule("TypeError: Cannot read properties of undefined (reading 'x')")).toBe('error');
    expect(errorRule('FAILED tests/test_a.py::test_b - assert 1 == 2')).toBe('failed');
    expect(errorRule('panic: runtime error: index out of range')).toBe('panic');
    expect(errorRule('Traceback (most recent call last):')).toBe('traceback');
    expect(errorRule('make: *** [all] Error 2; exit status 2')).toBe('exit code');
    expect(errorRule('npm warn deprecated glob@7')).toBeUndefined();
    expect(errorRule('exit code 0')).toBeUndefined();
    expect(errorRule('no errors found')).toBeUndefined();
  });

  it('merges excerpts that touch', () => {
    const lines = ['a', 'b', 'Error: one', 'c', 'Error: two', 'd', 'e', 'f', 'g', 'h', 'panic: three', 'i'];
    const found = findErrorLines(lines);
    expect(found).toEqual({ lines: [2, 4, 10], rules: ['error', 'error', 'panic'], total: 3 });
    const blocks = excerpts(lines, found, 1);
    expect(blocks.map((b) => [b.from, b.error_lines])).toEqual([
      [2, [3, 5]],
      [10, [11]],
    ]);
    expect(blocks[0]?.text).toBe('b\nError: one\nc\nError: two\nd');
  });

  it('searches literally by default and by RE2 on request, with context', async () => {
    const lines = ['x (a+)+$ y', 'aaa', 'AAB'];
    const literal = searchLines(lines, await matcher('(a+)+$', {}), { context: 1, skip: 0, max: 10 });
    expect(literal.matches.map((m) => m.line)).toEqual([1]);
    const regex = searchLines(lines, await matcher('^a+$', { regex: true }), {
      context: 1,
      skip: 0,
      max: 10,
    });
    expect(regex.matches).toEqual([{ line: 2, text: 'aaa', before: ['x (a+)+$ y'], after: ['AAB'] }]);
    const sensitive = searchLines(lines, await matcher('aa', { case_sensitive: true }), {
      context: 0,
      skip: 0,
      max: 10,
    });
    expect(sensitive.total).toBe(1);
  });

  it('runs a catastrophic regex over a 100,000-character line at once', async () => {
    const test = await matcher('(a+)+$', { regex: true });
    const started = performance.now();
    expect(test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('JUnit XML', () => {
  const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');

  it('reads a Jest (jest-junit) report', async () => {
    const results = await parseJUnit(read('jest-junit.xml'), 'jest');
    expect(results.map((r) => [r.suite, r.name, r.status, r.duration_ms])).toEqual([
      ['cart adds an item', 'cart adds an item', 'passed', 4],
      ['cart applies a discount', 'cart applies a discount', 'failed', 21],
      ['cart removes an item', 'cart removes an item', 'skipped', 0],
    ]);
    expect(results[1]?.message).toContain('Expected: 90');
  });

  it('reads a pytest report, errors as failures', async () => {
    const results = await parseJUnit(read('pytest.xml'), 'pytest');
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['test_total', 'passed'],
      ['test_tax', 'failed'],
      ['test_db', 'failed'],
      ['test_slow', 'skipped'],
    ]);
    expect(results[1]?.suite).toBe('tests.test_orders');
    expect(results[1]?.message.split('\n')[0]).toBe('assert 21 == 20');
    expect(results[2]?.message).toContain('ConnectionRefusedError');
  });

  it('reads a Maven Surefire report (a lone testsuite root)', async () => {
    const results = await parseJUnit(read('surefire.xml'), 'surefire');
    expect(results.map((r) => [r.suite, r.name, r.status, r.duration_ms])).toEqual([
      ['com.example.InvoiceTest', 'totalsLines', 'passed', 12],
      ['com.example.InvoiceTest', 'roundsHalfUp', 'failed', 31],
    ]);
    expect(results[1]?.message).toContain('expected: <10.05> but was: <10.04>');
  });

  it('reads a go-junit-report report', async () => {
    const results = await parseJUnit(read('go-junit-report.xml'), 'go');
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['TestPrice', 'passed'],
      ['TestPrice/discount', 'passed'],
      ['TestRound', 'failed'],
    ]);
    expect(results[2]?.message).toContain('Round(1.005) = 1, want 1.01');
  });

  it('refuses malformed XML naming the line', async () => {
    await expect(parseJUnit('<testsuites>\n<testsuite>\n</testsuites>', 'report.xml')).rejects.toThrow(
      /report.xml is not well-formed XML: line 3/,
    );
    await expect(parseJUnit('<html></html>', 'page')).rejects.toThrow(/not a JUnit report/);
  });
});

describe('durations', () => {
  it('takes nearest-rank percentiles and buckets by day or ISO week', () => {
    expect(percentile([10, 12, 14, 16], 50)).toBe(12);
    expect(percentile([15, 20, 30], 95)).toBe(30);
    expect(percentile([], 50)).toBeUndefined();
    expect(bucketOf('2026-03-11T23:00:00Z', 'day')).toBe('2026-03-11');
    expect(bucketOf('2026-03-11T23:00:00Z', 'week')).toBe('2026-03-09');
    expect(bucketOf('2026-03-15T10:00:00Z', 'week')).toBe('2026-03-09');
  });

  it('flags a period whose p50 is over the baseline p50 by the threshold', () => {
    const min = 60_000;
    const item = (day: string, minutes: number) => ({
      started_at: `${day}T10:00:00.000Z`,
      duration_ms: minutes * min,
    });
    const trend = durationTrend(
      [
        item('2026-02-20', 99), // before the baseline: ignored
        item('2026-03-02', 10),
        item('2026-03-03', 12),
        item('2026-03-04', 14),
        item('2026-03-05', 16),
        item('2026-03-09', 13),
        item('2026-03-09', 14),
        item('2026-03-10', 15),
        item('2026-03-10', 20),
        item('2026-03-10', 30),
      ],
      {
        since: '2026-03-08T00:00:00.000Z',
        baselineFrom: '2026-03-01T00:00:00.000Z',
        bucket: 'day',
        thresholdPct: 20,
      },
    );
    // Baseline [10,12,14,16]: p50 12 min; limit 14.4 min. 03-09: p50 13 (no); 03-10: p50 20 (yes), p95 30.
    expect(trend.baseline).toEqual({ runs: 4, p50_ms: 12 * min, p95_ms: 16 * min });
    expect(trend.points).toEqual([
      { period: '2026-03-09', runs: 2, p50_ms: 13 * min, p95_ms: 14 * min, regression: false },
      { period: '2026-03-10', runs: 3, p50_ms: 20 * min, p95_ms: 30 * min, regression: true },
    ]);
    expect(trend.regressions).toEqual(['2026-03-10']);
  });
});

describe('repos and patterns', () => {
  it('reads the origin remote of a .git/config', () => {
    const config = (url: string) =>
      `[core]\n\tbare = false\n[remote "upstream"]\n\turl = https://github.com/x/y\n[remote "origin"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`;
    expect(originRepo(config('git@github.com:octo-org/octo-repo.git'))).toBe('octo-org/octo-repo');
    expect(originRepo(config('https://github.example.com/acme/rocket'))).toBe('acme/rocket');
    expect(originRepo(config('ssh://git@github.com/acme/rocket.git'))).toBe('acme/rocket');
    expect(originRepo('[core]\n')).toBeUndefined();
  });

  it('matches artifact names against globs, case-insensitively', () => {
    const match = globs(['*junit*', '*test-results*']);
    expect(['JUnit-linux', 'py-test-results', 'coverage'].map(match)).toEqual([true, true, false]);
  });

  it('rates flips as flaky commits over commits seen', () => {
    expect(flipRate(1, 3)).toBe(0.333);
    expect(flipRate(0, 0)).toBe(0);
  });
});

describe('failure summary', () => {
  const run: Run = {
    id: 1,
    repo: 'o/r',
    workflow_id: 1,
    workflow: 'CI',
    run_number: 1,
    branch: 'main',
    commit: 'abc',
    event: 'push',
    status: 'completed',
    conclusion: 'failure',
    attempt: 1,
    created_at: '2026-03-02T08:00:00.000Z',
    started_at: null,
    finished_at: null,
    url: '',
  };
  const job: Job = {
    id: 7,
    run_id: 1,
    name: 'test',
    status: 'completed',
    conclusion: 'failure',
    attempt: 1,
    created_at: null,
    started_at: null,
    completed_at: null,
    steps: [
      {
        number: 3,
        name: 'Run tests',
        status: 'completed',
        conclusion: 'failure',
        started_at: null,
        completed_at: null,
      },
    ],
  };

  it('stays under max_bytes and says what it cut', () => {
    const lines = Array.from({ length: 2_000 }, (_, i) =>
      i % 20 === 0 ? `Error: number ${i} ${'x'.repeat(80)}` : `line ${i}`,
    );
    const found = findErrorLines(lines);
    const index: LogIndex = {
      job_id: 7,
      total_lines: lines.length,
      error_lines: found.lines,
      error_rules: found.rules,
      error_total: found.total,
      excerpts: excerpts(lines, found).slice(0, 50),
    };
    const tests = Array.from({ length: 100 }, (_, i) => ({
      suite: 's',
      name: `t${i}`,
      status: 'failed' as const,
      duration_ms: 1,
      message: 'm'.repeat(200),
    }));
    const summary = failureSummary(run, [job], new Map([[7, index]]), tests, 3_000);
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeLessThanOrEqual(3_000);
    expect(summary.failed_jobs[0]?.failed_steps).toEqual(['Run tests']);
    expect(summary.failed_jobs[0]?.excerpts[0]?.error_lines).toEqual([1]);
    expect(summary.cut.join(' ')).toMatch(/more error excerpt\(s\).*failed test\(s\)/);
    expect(summary.more.join(' ')).toContain('search_job_logs');
  });
});
