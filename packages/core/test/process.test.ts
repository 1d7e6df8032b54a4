import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { expectToolOk, RAW_INITIALIZE_PARAMS } from './helpers.js';

// The fixture imports the built core: `pnpm --filter @shipyard/core build` first.
const FIXTURE = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));
const TOOL_NAMES = ['slow_echo', 'loaded_modules', 'write_note'];

/** The environment without SHIPYARD_* settings of whoever runs the tests. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SHIPYARD_')) env[key] = value;
  }
  return { ...env, ...extra };
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Proc {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** Resolves with the stderr text once it matches. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Write one JSON-RPC message as a line. */
  send(message: unknown): void;
  /** The JSON-RPC response with this id. */
  response(id: number, timeoutMs?: number): Promise<Record<string, unknown>>;
}

const running: ChildProcessWithoutNullStreams[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

function until<T>(
  check: () => T | undefined,
  what: string,
  timeoutMs: number,
  onData: (fn: () => void) => () => void,
) {
  return new Promise<T>((resolve, reject) => {
    let stop = () => {};
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const attempt = () => {
      const value = check();
      if (value === undefined) return;
      clearTimeout(timer);
      stop();
      resolve(value);
    };
    stop = onData(attempt);
    attempt();
  });
}

function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [FIXTURE, ...args], { env: cleanEnv(env), stdio: 'pipe' });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const onData = (stream: NodeJS.ReadableStream) => (fn: () => void) => {
    stream.on('data', fn);
    return () => stream.off('data', fn);
  };
  const messages = () =>
    out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStderr: (pattern, timeoutMs = 15_000) =>
      until(() => err.match(pattern) ?? undefined, `stderr ${pattern}`, timeoutMs, onData(child.stderr)),
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    response: (id, timeoutMs = 15_000) =>
      until(() => messages().find((m) => m.id === id), `response ${id}`, timeoutMs, onData(child.stdout)),
  };
}

/** Run to completion (for --help, --version and start-up errors). */
async function runToExit(
  args: string[],
  env: Record<string, string> = {},
): Promise<Exit & { out: string; err: string }> {
  const proc = start(args, env);
  proc.child.stdin.end();
  const exit = await proc.exited;
  return { ...exit, out: proc.stdout(), err: proc.stderr() };
}

/** A tools/call of the fixture's slow_echo. */
const slowEcho = (id: number, text: string, ms: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow_echo', arguments: { text, ms } },
});

async function initialize(proc: Proc): Promise<void> {
  proc.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: RAW_INITIALIZE_PARAMS,
  });
  const answer = await proc.response(1);
  expect(answer.result).toMatchObject({ serverInfo: { name: 'shipyard-fixture', version: '9.8.7' } });
  proc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

async function stdioClient(args: string[], stderr: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE, ...args],
    env: cleanEnv(),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const client = new Client({ name: 'process-test', version: '0.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

describe('the bin', () => {
  it('prints the version with --version and exits 0', async () => {
    const result = await runToExit(['--version']);
    expect(result.code).toBe(0);
    expect(result.out).toBe('9.8.7\n');
    expect((await runToExit(['-v'])).out).toBe('9.8.7\n');
  });

  it('prints usage with every flag with --help and exits 0', async () => {
    const result = await runToExit(['--help']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('shipyard-fixture - Test fixture server');
    expect(result.out).toContain('Usage: shipyard-fixture [options]');
    for (const flag of [
      '--transport',
      '--host',
      '--port',
      '--allowed-hosts',
      '--data-dir',
      '--read-only',
      '--tools',
      '--user',
      '--log-level',
      '--check',
      '--backup',
      '--overwrite',
      '--help',
      '--version',
      'SHIPYARD_HTTP_TOKEN',
    ]) {
      expect(result.out).toContain(flag);
    }
  });

  it('runs the check it is given with --check instead of serving: ok on stdout (0), problems on stderr (1)', async () => {
    const sound = await runToExit(['--check', '--data-dir', '/srv/data'], { FIXTURE_CHECK: 'ok' });
    expect(sound).toMatchObject({ code: 0, out: '/srv/data: ok\n', err: '' });
    const damaged = await runToExit(['--check', '--data-dir', '/srv/data'], { FIXTURE_CHECK: 'damaged' });
    expect(damaged).toMatchObject({ code: 1, out: '', err: '/srv/data: damaged\n' });
  });

  it('refuses --check when the server has no data file to check', async () => {
    const result = await runToExit(['--check']);
    expect(result.code).toBe(2);
    expect(result.err).toBe('shipyard-fixture: --check: this server keeps no data file to check\n');
  });

  it('refuses --backup and --check with a database URL, pointing to pg_dump', async () => {
    for (const flag of [['--backup', 'copy.db'], ['--check']]) {
      const result = await runToExit([...flag, '--database-url', 'postgres://db/org'], {
        FIXTURE_CHECK: 'ok',
      });
      expect(result.code).toBe(2);
      expect(result.err).toContain(
        `${flag[0]} works on the SQLite data file; with a database URL, use pg_dump`,
      );
    }
  });

  it('refuses --backup with exit 2 when the server was given no way to back up its data', async () => {
    const result = await runToExit(['--backup', 'copy.db']);
    expect(result.code).toBe(2);
    expect(result.err).toBe('shipyard-fixture: --backup: this server keeps no data file to back up\n');
    expect(result.out).toBe('');
  });

  it('exits 2 with a message on an unknown flag', async () => {
    const result = await runToExit(['--bogus']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--bogus');
    expect(result.err).toContain('--help');
    expect(result.out).toBe('');
  });

  it('exits 2 with a message on a bad value', async () => {
    const result = await runToExit(['--transport', 'carrier-pigeon']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--transport must be stdio or http');
  });

  it('exits 2 on a database URL for a server that stores only in SQLite, showing no password', async () => {
    const result = await runToExit([], { SHIPYARD_DATABASE_URL: 'postgres://ana:s3cret@db/org' });
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'stores only in SQLite so far: unset --database-url / SHIPYARD_DATABASE_URL',
    );
    expect(result.err).not.toContain('s3cret');
    expect(result.out).toBe('');
  });

  it('exits 2 on --tools with an unknown name, listing the real tools', async () => {
    const result = await runToExit(['--tools', 'nope']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('nope');
    expect(result.err).toContain(TOOL_NAMES.join(', '));
    expect(result.out).toBe('');
    // Set by its variable, the setting is named so too.
    const fromEnv = await runToExit([], { SHIPYARD_TOOLS: 'nope' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.err).toContain('Unknown tool in --tools (SHIPYARD_TOOLS): nope.');
  });

  it('lists only read-only tools over stdio with --read-only', async () => {
    const client = await stdioClient(['--read-only']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['slow_echo', 'loaded_modules']);
  });

  it('lists only the allowed tools with SHIPYARD_TOOLS-style --tools', async () => {
    const client = await stdioClient(['--tools', 'write_note,slow_echo']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['slow_echo', 'write_note']);
  });

  it('does not load the http module when serving stdio', async () => {
    const client = await stdioClient([]);
    const result = expectToolOk(await client.callTool({ name: 'loaded_modules', arguments: {} }));
    expect(result).toEqual({ http: false });
  });

  it('serves HTTP with --transport http --port 0', async () => {
    const proc = start(['--transport', 'http', '--port', '0']);
    const match = await proc.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/);
    const port = Number(match[2]);
    expect(port).toBeGreaterThan(0);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', server: 'fixture' });
    // The probe the stdio test relies on does see the http module when it is loaded.
    const client = new Client({ name: 'process-test', version: '0.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(match[1] as string)));
    expect(expectToolOk(await client.callTool({ name: 'loaded_modules', arguments: {} }))).toEqual({
      http: true,
    });
    await client.close();
    expect(proc.stdout()).toBe('');
    // A second server on the same port says what to do about it.
    const taken = await runToExit(['--transport', 'http', '--port', String(port)]);
    expect(taken.code).toBe(2);
    expect(taken.err).toContain(
      `address already in use 127.0.0.1:${port}: another process listens there; give another --port or SHIPYARD_PORT (0 picks a free one)`,
    );
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });

  it('writes only JSON-RPC to stdout and logs to stderr', async () => {
    const proc = start(['--log-level', 'debug']);
    await initialize(proc);
    proc.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    proc.send(slowEcho(3, 'hi', 1));
    proc.send({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'slow_echo', arguments: { nope: 1 } },
    });
    proc.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'missing', arguments: {} } });
    expect((await proc.response(3)).result).toMatchObject({ structuredContent: { text: 'hi' } });
    expect((await proc.response(4)).result).toMatchObject({ isError: true });
    expect((await proc.response(5)).error).toMatchObject({ code: -32602 });
    await proc.waitForStderr(/slow_echo started: hi/);
    proc.child.stdin.end();
    expect((await proc.exited).code).toBe(0);

    const lines = proc.stdout().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) {
      const message = JSON.parse(line) as { jsonrpc?: string };
      expect(message.jsonrpc, line).toBe('2.0');
    }
    expect(proc.stderr()).toMatch(/debug \[fixture\] serving on stdio/);
    expect(proc.stderr()).toMatch(/info \[fixture\] slow_echo started: hi/);
    expect(proc.stdout()).not.toContain('[fixture]');
  });

  it('says it serves on stdio when started in a terminal, and nothing of it to a host', async () => {
    // script(1) runs the bin on a terminal of its own, and copies what the bin writes there to its stdout.
    const terminal = spawn('script', ['-qec', `"${process.execPath}" "${FIXTURE}"`, '/dev/null'], {
      env: cleanEnv(),
      stdio: 'pipe',
    });
    running.push(terminal);
    let shown = '';
    terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      shown += chunk;
    });
    const said = /shipyard-fixture: serving MCP on stdio.*stop with Ctrl-C/;
    await until(
      () => said.exec(shown) ?? undefined,
      'the terminal hint',
      15_000,
      (fn) => {
        terminal.stdout.on('data', fn);
        return () => terminal.stdout.off('data', fn);
      },
    );
    terminal.kill('SIGKILL');
    // A host's pipe gets no such line (the log level is the default, info).
    const proc = start([]);
    await initialize(proc);
    proc.child.stdin.end();
    await proc.exited;
    expect(proc.stderr()).not.toMatch(/serving MCP on stdio/);
  });

  it('answers a line that is not JSON-RPC with its JSON-RPC error, warns on stderr, and keeps serving', async () => {
    const proc = start([]);
    await initialize(proc);
    const errors = () =>
      proc
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"id":null'))
        .map((line) => (JSON.parse(line) as { error: { code: number } }).error.code);
    proc.child.stdin.write('{not json}\n');
    proc.child.stdin.write('{"hello":"world"}\n');
    // Neither a blank line nor a response is answered (a response is never answered).
    proc.child.stdin.write('\n  \r\n{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}\n');
    proc.child.stdin.write('[1,2]\n');
    // A request the SDK would drop unanswered (params as a list) is answered under its own id.
    proc.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: ['slow_echo', {}] });
    proc.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    expect((await proc.response(2)).result).toMatchObject({ tools: expect.any(Array) });
    expect((await proc.response(3)).error).toEqual({
      code: -32602,
      message: 'Invalid params for tools/call: params must be an object',
    });
    expect(errors()).toEqual([-32700, -32600, -32600]);
    await proc.waitForStderr(/answered -32600 to a line on stdin that is not a JSON-RPC message/);
    expect(proc.stderr()).toMatch(/warn \[fixture\] answered -32700 to a line on stdin that is not JSON/);
    expect(proc.stderr()).not.toContain('hello');
  });

  it('finishes an in-flight call on SIGTERM, then exits 0', async () => {
    const proc = start([]);
    await initialize(proc);
    proc.send(slowEcho(2, 'last words', 500));
    await proc.waitForStderr(/slow_echo started: last words/);
    proc.child.kill('SIGTERM');
    const response = await proc.response(2);
    expect(response.result).toMatchObject({ structuredContent: { text: 'last words' } });
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });

  it('exits 0 when stdin closes', async () => {
    const proc = start([]);
    await initialize(proc);
    proc.child.stdin.end();
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });

  it('answers every call it read before stdin closed, to a host that reads its answers late', async () => {
    // The answers outgrow the pipe while nobody reads: they wait in the server's stdout buffer, which
    // process.exit used to drop (30 of 1,000 answers arrived).
    const proc = start(['--log-level', 'debug']);
    await initialize(proc);
    proc.child.stdout.pause();
    const calls = 1_000;
    const text = 'x'.repeat(100);
    for (let id = 2; id < calls + 2; id++) {
      proc.send(slowEcho(id, text, 0));
    }
    proc.child.stdin.end();
    // Read again only once the server has begun to shut down.
    await proc.waitForStderr(/shutting down \(stdin closed\)/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    proc.child.stdout.resume();
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    const answered = proc
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result?: { structuredContent?: { text?: string } } })
      .filter((message) => message.result?.structuredContent?.text === text);
    expect(new Set(answered.map((message) => message.id)).size).toBe(calls);
  });

  it('answers a last call that has no newline before stdin closes', async () => {
    const proc = start([]);
    await initialize(proc);
    const call = { name: 'slow_echo', arguments: { text: 'no newline', ms: 50 } };
    proc.child.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: call }));
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    const answers = proc
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result?: { structuredContent?: unknown } });
    expect(answers.find((answer) => answer.id === 2)?.result?.structuredContent).toEqual({
      text: 'no newline',
    });
  });

  it('exits 0 on SIGINT', async () => {
    const proc = start([]);
    await initialize(proc);
    proc.child.kill('SIGINT');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
  });

  it('says why it could not start in its last line, even with --log-level silent', async () => {
    const env = {
      FIXTURE_WARM_UP_FAILS: 'Cannot open /srv/x/fixture.db: file is not a database\nsecond line',
    };
    const why = 'shipyard-fixture: could not start: Cannot open /srv/x/fixture.db: file is not a database\n';
    // Over stdio, warm-up follows the first initialize; the server then stops with exit code 1.
    const proc = start(['--log-level', 'silent'], env);
    await initialize(proc);
    expect((await proc.exited).code).toBe(1);
    expect(proc.stderr()).toBe(why);
    // Over HTTP, it warms up before it listens.
    const http = await runToExit(['--transport', 'http', '--port', '0', '--log-level', 'silent'], env);
    expect(http.code).toBe(1);
    expect(http.err).toBe(why);
    // At the default level, after what the calls it answered on its way out logged.
    const logging = start([], env);
    await initialize(logging);
    logging.send(slowEcho(2, 'hi', 50));
    expect((await logging.exited).code).toBe(1);
    expect(logging.stderr()).toContain('warm-up failed');
    expect(logging.stderr().endsWith(why)).toBe(true);
  });

  it('refuses to serve HTTP on 0.0.0.0 without SHIPYARD_HTTP_TOKEN', async () => {
    const result = await runToExit(['--host', '0.0.0.0', '--transport', 'http', '--port', '0']);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.err).toContain('SHIPYARD_HTTP_TOKEN');
    expect(result.err).not.toMatch(/listening on/);
  });

  it('serves HTTP on 0.0.0.0 with SHIPYARD_HTTP_TOKEN', async () => {
    const proc = start(['--host', '0.0.0.0', '--transport', 'http', '--port', '0'], {
      SHIPYARD_HTTP_TOKEN: 'process-token',
    });
    const match = await proc.waitForStderr(/listening on http:\/\/0\.0\.0\.0:(\d+)\/mcp/);
    const url = `http://127.0.0.1:${match[1]}/mcp`;
    const denied = await fetch(url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(denied.status).toBe(401);
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });
});
