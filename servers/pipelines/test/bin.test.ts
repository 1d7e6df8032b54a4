import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backupWithoutDataFile, callOk, spawnServer } from '@shipyard/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { FakeGitHub } from './fake-github.js';
import { bin, binArgs, engine, TOKEN } from './helpers.js';
import { seedHistory } from './scenario.js';

let dir: string;
let fake: FakeGitHub;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shipyard-pipelines-'));
  fake = await new FakeGitHub().start();
  seedHistory(fake);
  fake.logs.set(1002, 'Error: from the bin\n');
});
afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

it(`the built bin serves over stdio, takes its repo from the clone and its token from a file (${engine})`, async () => {
  // A clone whose origin remote names the repo: read as a file, no git command.
  const clone = join(dir, 'clone');
  mkdirSync(join(clone, '.git'), { recursive: true });
  writeFileSync(
    join(clone, '.git', 'config'),
    '[remote "origin"]\n\turl = git@github.com:octo-org/octo-repo.git\n',
  );
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const stderr: string[] = [];
  const client = await spawnServer(
    bin,
    [...(await binArgs(join(dir, 'data'))), '--token-file', join(dir, 'token'), '--log-level', 'debug'],
    {
      cwd: clone,
      env: { GITHUB_API_URL: fake.url },
      stderr,
    },
  );
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-pipelines', version: pkg.version });
    expect(await callOk(client, 'sync_runs', {})).toMatchObject({
      repo: 'octo-org/octo-repo',
      runs: 3,
      logs: 1,
    });
    const summary = await callOk<{ failed_jobs: Array<{ excerpts: Array<{ text: string }> }> }>(
      client,
      'get_failure_summary',
      { run: 101 },
    );
    expect(summary.failed_jobs[0]?.excerpts[0]?.text).toBe('Error: from the bin');
    expect(fake.requests.find((r) => r.path.endsWith('/actions/runs'))?.authorization).toBe(`token ${TOKEN}`);
  } finally {
    await client.close();
  }
  expect(stderr.join('')).not.toContain(TOKEN);
});

it("--help lists the server's own flags", () => {
  const help = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  for (const flag of [
    '--repo OWNER/NAME',
    '--token-file FILE',
    '--reports-dir DIR',
    '--junit-artifact a,b',
  ]) {
    expect(help).toContain(flag);
  }
});

it('takes --backup FILE through @shipyard/db: without a data file it exits 1 naming the file', () => {
  const run = backupWithoutDataFile(bin, 'pipelines');
  expect(run.stderr).toContain(`backup failed: there is no data file ${run.dataFile} to back up`);
  expect(run.status).toBe(1);
});
