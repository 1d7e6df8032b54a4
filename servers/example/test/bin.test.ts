import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  backupWithoutDataFile,
  callOk,
  connectHttp,
  promptText,
  readText,
  spawnHttpServer,
  spawnServer,
} from '@shipyard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { bin } from './helpers.js';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'shipyard-example-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const line = (message: unknown) => `${JSON.stringify(message)}\n`;

/** The bin started with a data dir that cannot be created (a file stands where its parent should be). */
function spawnOnBlockedDir(args: string[] = []) {
  const blocker = join(dataDir, 'not-a-dir');
  writeFileSync(blocker, '');
  const child = spawn(process.execPath, [bin, ...args, '--data-dir', join(blocker, 'data')], {
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    // 'close', not 'exit': what the child wrote last may still be on its way through the pipes at 'exit'.
    exited: new Promise<number | null>((resolve) => child.once('close', resolve)),
  };
}

describe('the built bin', () => {
  it('serves tools, resources and prompts over stdio on its SQLite file', async () => {
    const stderr: string[] = [];
    const client = await spawnServer(bin, ['--data-dir', dataDir], { stderr });
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-example', version: pkg.version });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['list_notes', 'save_note']);
      await callOk(client, 'save_note', { title: 'From stdio', tags: ['bin'] });
      const page = await callOk<{ total: number }>(client, 'list_notes', { tag: 'bin' });
      expect(page.total).toBe(1);
      expect(await readText(client, 'notes://from-stdio')).toContain('# From stdio');
      expect(await promptText(client, 'review-notes', { tag: 'bin' })).toContain(
        '`list_notes` with tag "bin"',
      );
      const done = await client.complete({
        ref: { type: 'ref/resource', uri: 'notes://{slug}' },
        argument: { name: 'slug', value: 'from' },
      });
      expect(done.completion.values).toEqual(['from-stdio']);
    } finally {
      await client.close();
    }
    expect(readdirSync(dataDir)).toContain('example.db');
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('keeps its data across restarts', async () => {
    const client = await spawnServer(bin, ['--data-dir', dataDir]);
    try {
      expect((await callOk<{ total: number }>(client, 'list_notes', { tag: 'bin' })).total).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('answers 50 concurrent HTTP sessions on one process', async () => {
    const server = await spawnHttpServer(bin, ['--data-dir', dataDir]);
    try {
      const clients = await Promise.all(Array.from({ length: 50 }, () => connectHttp(server.url)));
      const saved = await Promise.all(
        clients.map((client, i) =>
          callOk<{ note: { slug: string } }>(client, 'save_note', { title: `HTTP note ${i}` }),
        ),
      );
      expect(new Set(saved.map((s) => s.note.slug)).size).toBe(50);
      const totals = await Promise.all(
        clients.map((client) => callOk<{ total: number }>(client, 'list_notes', { query: 'HTTP note' })),
      );
      expect(totals.every((t) => t.total === 50)).toBe(true);
      await Promise.all(clients.map((client) => client.close()));
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('loads the HTTP stack only for --transport http', async () => {
    // A preloaded script reports, as the process exits, whether Node's http module was ever loaded.
    const probe = join(dataDir, 'http-probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => process.stderr.write('http loaded: ' + process.moduleLoadList.includes('NativeModule http') + '\\n'));",
    );
    const run = async (args: string[], ready: (out: { stdout: string; stderr: string }) => boolean) => {
      const child = spawn(process.execPath, [bin, ...args, '--data-dir', dataDir], {
        stdio: 'pipe',
        env: { ...process.env, NODE_OPTIONS: `--require "${probe}"` },
      });
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (chunk: Buffer) => {
        out.stdout += chunk;
      });
      child.stderr.on('data', (chunk: Buffer) => {
        out.stderr += chunk;
      });
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.stdin.write(line(INITIALIZE));
      await expect.poll(() => ready(out), { timeout: 15_000 }).toBe(true);
      child.kill('SIGTERM');
      await exited;
      return out.stderr;
    };
    expect(await run([], (out) => out.stdout.includes('"id":1'))).toContain('http loaded: false');
    const http = await run(['--transport', 'http', '--port', '0'], (out) => /listening/i.test(out.stderr));
    expect(http).toContain('http loaded: true');
  });

  it('answers initialize before opening the database, and stops with a clear log if it cannot', async () => {
    const run = spawnOnBlockedDir();
    run.child.stdin.write(line(INITIALIZE));
    // A spawned Node process can take over a second to answer when the whole suite runs at once.
    await expect.poll(run.stdout, { timeout: 15_000 }).toContain('"id":1');
    run.child.stdin.write(line(INITIALIZED));
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('warm-up failed');
    expect(run.stderr()).toMatch(/ENOTDIR|EEXIST/);
  });

  it('answers what a client sent at once before it stops on a bad data dir', async () => {
    const run = spawnOnBlockedDir();
    // initialize, initialized and tools/list in one write, as a client that does not wait may send them.
    run.child.stdin.write(
      [INITIALIZE, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'tools/list' }].map(line).join(''),
    );
    // A one-shot client closes its end right away: the exit code still says warm-up failed.
    run.child.stdin.end();
    expect(await run.exited).toBe(1);
    const ids = run
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((text) => (JSON.parse(text) as { id?: number }).id);
    expect(ids).toEqual([1, 2]);
  });

  it('over HTTP, stops on a bad data dir before it listens', async () => {
    const run = spawnOnBlockedDir(['--transport', 'http', '--port', '0']);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/ENOTDIR|EEXIST/);
    expect(run.stderr()).not.toContain('listening on');
  });

  it('prints the package version', async () => {
    const { execFileSync } = await import('node:child_process');
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim()).toBe(pkg.version);
  });
});

it('takes --backup FILE through @shipyard/db: without a data file it exits 1 naming the file', () => {
  const run = backupWithoutDataFile(bin, 'example');
  expect(run.stderr).toContain(`backup failed: there is no data file ${run.dataFile} to back up`);
  expect(run.status).toBe(1);
});
