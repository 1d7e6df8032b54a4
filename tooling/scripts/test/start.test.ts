import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const start = fileURLToPath(new URL('../start.mjs', import.meta.url));

describe('pnpm start (the quick start)', () => {
  it('builds the example server and serves it on stdio, answering initialize', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-start-'));
    try {
      const child = spawn(process.execPath, [start, 'example', '--data-dir', dataDir], { stdio: 'pipe' });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      child.stdin.end(`${JSON.stringify(initialize)}\n`);
      expect(await exited).toBe(0);
      const answer = JSON.parse(stdout.split('\n')[0] ?? '') as {
        id: number;
        result: { serverInfo: unknown };
      };
      expect(answer.id).toBe(1);
      expect(answer.result.serverInfo).toMatchObject({ name: 'shipyard-example' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('takes the -- that pnpm passes through before the flags (pnpm start tickets -- --user ana)', () => {
    const tickets = JSON.parse(
      readFileSync(new URL('../../../servers/tickets/package.json', import.meta.url), 'utf8'),
    );
    for (const args of [
      ['tickets', '--', '--user', 'ana', '--version'],
      ['--', 'tickets', '--user', 'ana', '--version'],
    ]) {
      const run = spawnSync(process.execPath, [start, ...args], { encoding: 'utf8', input: '' });
      expect(run.stderr, args.join(' ')).not.toContain('Unexpected argument');
      expect(run.status, args.join(' ')).toBe(0);
      expect(run.stdout.trim()).toBe(tickets.version);
    }
  }, 120_000);

  it('answers a server name that is not there with the servers there are', () => {
    const run = spawnSync(process.execPath, [start, 'ticket'], { encoding: 'utf8', input: '' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^No server "ticket" in servers\/\. There are: .*\btickets\b/);
    expect(run.stderr).toContain('example');
    expect(run.stderr).toContain('Try: pnpm start tickets');
  });
});

describe('the start script of a server package (pnpm --filter @shipyard/<name> start)', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const serve = join(root, 'tooling/scripts/serve.mjs');

  it('is the start script of every server and of the template', () => {
    const manifests = readdirSync(join(root, 'servers'))
      .map((name) => join(root, 'servers', name, 'package.json'))
      .filter((file) => existsSync(file));
    for (const file of [...manifests, join(root, 'tooling/create-server/template/package.json')]) {
      expect(JSON.parse(readFileSync(file, 'utf8')).scripts?.start, file).toBe(
        'node ../../tooling/scripts/serve.mjs',
      );
    }
  });

  it('runs the built bin with the flags given', () => {
    const run = spawnSync(process.execPath, [serve, '--', '--version'], {
      cwd: join(root, 'servers/example'),
      encoding: 'utf8',
    });
    const example = JSON.parse(readFileSync(join(root, 'servers/example/package.json'), 'utf8'));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(example.version);
  });

  it('says how to build a server that is not built, in one line and no stack', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'shipyard-serve-')), 'servers', 'notes');
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: '@shipyard/notes', bin: { 'shipyard-notes': './dist/index.cjs' } }),
      );
      const run = spawnSync(process.execPath, [serve], { cwd: dir, encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim()).toBe(
        '@shipyard/notes is not built (no dist/index.cjs): run `pnpm build` at the repository root, ' +
          'or `pnpm start notes` there, which builds it and then starts it.',
      );
    } finally {
      rmSync(join(dir, '../../'), { recursive: true, force: true });
    }
  });
});
