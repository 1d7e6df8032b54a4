import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callError, callOk, checkBadInputs, watchResourceUpdates } from '@shipyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ingestTool from '../src/tools/ingest_test_report.js';
import { FakeGitHub } from './fake-github.js';
import { connectPipelines, engine, fixtures, onPostgres, openStore } from './helpers.js';

let fake: FakeGitHub;
let base: string;
let reports: string;
let elsewhere: string;

beforeAll(async () => {
  fake = await new FakeGitHub().start();
  base = mkdtempSync(join(tmpdir(), 'shipyard-pipelines-reports-'));
  reports = join(base, 'reports');
  elsewhere = join(base, 'elsewhere');
  mkdirSync(reports);
  mkdirSync(elsewhere);
  writeFileSync(join(reports, 'pytest.xml'), readFileSync(join(fixtures, 'pytest.xml')));
  writeFileSync(join(elsewhere, 'secret.xml'), readFileSync(join(fixtures, 'pytest.xml')));
  symlinkSync(join(elsewhere, 'secret.xml'), join(reports, 'link.xml'));
});
afterAll(async () => {
  await fake.stop();
  rmSync(base, { recursive: true, force: true });
});

const counts = (r: Record<string, unknown>) => [r.tests, r.passed, r.failed, r.skipped];

describe('ingest_test_report', () => {
  it('ingests XML content and notifies subscribers of the flaky list', async () => {
    const { client } = await connectPipelines({ fake });
    try {
      const updates = watchResourceUpdates(client);
      await client.subscribeResource({ uri: 'pipelines://flaky' });
      // On PostgreSQL the listener reports every subscription once when it starts listening: not a write's.
      if (onPostgres) await expect.poll(() => updates, { timeout: 5_000 }).toContain('pipelines://flaky');
      updates.length = 0;
      const xml = readFileSync(join(fixtures, 'surefire.xml'), 'utf8');
      const result = await callOk(client, 'ingest_test_report', { content: xml, commit: 'ABCDEF1' });
      expect(counts(result)).toEqual([2, 1, 1, 0]);
      expect(result.failed_tests).toEqual([
        expect.objectContaining({ suite: 'com.example.InvoiceTest', name: 'roundsHalfUp' }),
      ]);
      // On PostgreSQL the write is heard twice: from this process, and from its notice.
      const times = onPostgres ? 2 : 1;
      await expect.poll(() => updates).toEqual(Array.from({ length: times }, () => 'pipelines://flaky'));
    } finally {
      await client.close();
    }
  });

  it('refuses malformed XML naming the line', async () => {
    const { client } = await connectPipelines({ fake });
    try {
      const error = await callError(
        client,
        'ingest_test_report',
        { content: '<testsuite>\n<testcase>\n</testsuite>' },
        'invalid_input',
      );
      expect(error.message).toMatch(/content is not well-formed XML: line 3/);
      await callError(client, 'ingest_test_report', {}, 'invalid_input');
    } finally {
      await client.close();
    }
  });

  it('reads a path inside --reports-dir when the client offers no roots, and nothing outside', async () => {
    const { client } = await connectPipelines({ fake, reportsDir: reports });
    try {
      expect(counts(await callOk(client, 'ingest_test_report', { path: 'pytest.xml' }))).toEqual([
        4, 1, 2, 1,
      ]);
      expect(
        counts(await callOk(client, 'ingest_test_report', { path: join(reports, 'pytest.xml') })),
      ).toEqual([4, 1, 2, 1]);
      for (const path of [
        join(elsewhere, 'secret.xml'),
        '../elsewhere/secret.xml',
        'link.xml',
        '/etc/passwd',
      ]) {
        const error = await callError(client, 'ingest_test_report', { path }, 'forbidden');
        expect(error.message).toContain(`(--reports-dir): ${reports}`);
      }
      await callError(client, 'ingest_test_report', { path: 'missing.xml' }, 'not_found');
    } finally {
      await client.close();
    }
  });

  it('reads only inside the client roots when the client offers them', async () => {
    const { client } = await connectPipelines({
      fake,
      reportsDir: reports,
      roots: [pathToFileURL(elsewhere).href],
    });
    try {
      expect(
        counts(await callOk(client, 'ingest_test_report', { path: join(elsewhere, 'secret.xml') })),
      ).toEqual([4, 1, 2, 1]);
      const error = await callError(
        client,
        'ingest_test_report',
        { path: join(reports, 'pytest.xml') },
        'forbidden',
      );
      expect(error.message).toContain(`(the client roots): ${elsewhere}`);
    } finally {
      await client.close();
    }
  });

  it('refuses every path when neither roots nor --reports-dir allow one', async () => {
    const { client } = await connectPipelines({ fake });
    try {
      const error = await callError(
        client,
        'ingest_test_report',
        { path: join(reports, 'pytest.xml') },
        'forbidden',
      );
      expect(error.hint).toContain('--reports-dir');
    } finally {
      await client.close();
    }
  });

  it('handles bad input without crashing or leaking internals', async () => {
    const { client } = await connectPipelines({ fake });
    try {
      const summary = await checkBadInputs(
        client,
        'ingest_test_report',
        ingestTool.input,
        { content: '<testsuite/>' },
        {
          allowedCodes: ['forbidden'],
        },
      );
      expect(summary.rejected).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('changes made by another process', () => {
  it(`reach this process's subscribers (${engine}: ${onPostgres ? 'NOTIFY' : 'the change log'})`, async () => {
    const file = join(base, 'shared');
    mkdirSync(file);
    const one = await openStore(file);
    const two = await openStore(file);
    const heard: string[] = [];
    let listening = !onPostgres;
    const stop = one.store.watch(
      (...uris) => heard.push(...uris),
      () => {
        listening = true;
      },
    );
    try {
      // On PostgreSQL a notice sent before LISTEN holds is missed (and reported as "everything changed").
      await expect.poll(() => listening, { timeout: 5_000 }).toBe(true);
      await two.store.saveReport({
        repo: 'o/r',
        source: 'content',
        commit: 'abc1234',
        run_id: 7,
        seen_at: '2026-03-02T08:00:00.000Z',
        results: [{ suite: 's', name: 't', status: 'passed', duration_ms: 1, message: '' }],
      });
      await expect.poll(() => heard, { timeout: 5_000 }).toEqual(['pipelines://flaky', 'pipelines://runs/7']);
    } finally {
      stop();
      await one.close();
      await two.close();
    }
  });
});
