import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { expect } from 'vitest';
import { createLogger, type HttpHandle, type HttpOptions, Runtime, startHttp } from '../src/index.js';
import { createSample } from './fixtures/sample.js';

/** What the HTTP tests share: a server on a port of its own, SDK clients, raw requests, and the cleanup. */

export const handles: HttpHandle[] = [];
export const clients: Client[] = [];
export const runtimes: Runtime[] = [];
/** The log lines of the runtimes started here. */
export const logs: string[] = [];
const agents: Agent[] = [];
const running: ChildProcessWithoutNullStreams[] = [];
// The fixture imports the built core: `pnpm --filter @shipyard/core build` first.
const FIXTURE = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));

/** Close every client, server and runtime started here (after each test). */
export async function cleanUp(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(handles.splice(0).map((handle) => handle.close()));
  await Promise.allSettled(runtimes.splice(0).map((runtime) => runtime.close({ drainMs: 1_000 })));
  await Promise.allSettled(agents.splice(0).map((agent) => agent.close()));
  logs.length = 0;
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

export function newRuntime(definition = createSample()): Runtime {
  const runtime = new Runtime(definition, {
    logger: createLogger('sample', { level: 'debug', write: (line) => logs.push(line) }),
  });
  runtimes.push(runtime);
  return runtime;
}

export async function serve(
  options: Partial<HttpOptions> = {},
  definition = createSample(),
): Promise<{ handle: HttpHandle; runtime: Runtime }> {
  const runtime = newRuntime(definition);
  const handle = await startHttp(runtime, { host: '127.0.0.1', port: 0, ...options });
  handles.push(handle);
  return { handle, runtime };
}

/**
 * A real SDK client over Streamable HTTP (it opens its GET stream after initialize). `from` is the local
 * address it connects from (any of 127.0.0.0/8), so a test can have clients at different addresses.
 */
export async function connectHttp(
  handle: HttpHandle,
  options: { token?: string; from?: string } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  let fetch: FetchLike | undefined;
  if (options.from) {
    const agent = new Agent({ localAddress: options.from });
    agents.push(agent);
    fetch = ((url, init) => undiciFetch(url, { ...(init as object), dispatcher: agent })) as FetchLike;
  }
  const transport = new StreamableHTTPClientTransport(new URL(handle.url), {
    ...(options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {}),
    ...(fetch ? { fetch } : {}),
  });
  const client = new Client({ name: 'http-test', version: '0.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

export const initializeBody = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'raw', version: '0.0.0' },
  },
});

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Open a session's GET stream and resolve once the server has answered its headers. */
export function listen(port: number, sessionId: string): Promise<import('node:http').ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'GET',
      path: '/mcp',
      agent: false,
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
    });
    req.on('response', (res) => {
      res.on('error', () => {});
      resolve(req);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request through node:http, which (unlike fetch) lets a test set Host and Origin freely. */
export function raw(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Resolves once the runtime has logged a line containing `text` (a server-side signal, not a sleep). */
export async function logged(text: string): Promise<void> {
  await expect.poll(() => logs.some((line) => line.includes(text)), { timeout: 10_000 }).toBe(true);
}

/** Open a session with a raw initialize: the headers of a request in it. */
export async function sessionHeaders(port: number): Promise<Record<string, string>> {
  const init = await raw(port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
  return {
    ...MCP_HEADERS,
    'mcp-session-id': String(init.headers['mcp-session-id']),
    'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
  };
}

/** The fixture over HTTP on a free port, with its stderr collected; resolves once it listens. */
export async function startFixture(args: string[] = []) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !key.startsWith('SHIPYARD_')) env[key] = value;
  const child = spawn(process.execPath, [FIXTURE, '--transport', 'http', '--port', '0', ...args], {
    env,
    stdio: 'pipe',
  });
  running.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await expect
    .poll(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(stderr), { timeout: 15_000 })
    .toBe(true);
  const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]);
  return {
    port,
    stderr: () => stderr,
    /** SIGTERM, and the exit code. */
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
