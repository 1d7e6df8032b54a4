import { type ChildProcess, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createLogger, Runtime, type RuntimeOptions, type ServerDefinition } from '@shipyard/core';

export interface ConnectOptions extends Omit<RuntimeOptions, 'logger'> {
  /** Capture the server's log lines here instead of writing them to stderr. */
  logs?: string[];
  /** Root URIs the client offers (it declares the roots capability); without it the client declares none. */
  roots?: string[];
}

export interface Connected extends Client {
  /** The runtime behind the client (to check sessions, or call changed()). */
  runtime: Runtime;
}

/** A real MCP Client talking to the definition over the in-memory transport. Close it with `client.close()`. */
export async function connect(
  definition: ServerDefinition,
  options: ConnectOptions = {},
): Promise<Connected> {
  const { logs, roots, ...runtimeOptions } = options;
  const logger = createLogger(definition.name, {
    level: logs ? 'debug' : 'error',
    write: (line) => (logs ? logs.push(line) : process.stderr.write(line)),
  });
  const runtime = new Runtime(definition, { ...runtimeOptions, logger });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await runtime.connect(serverTransport);
  const client = new Client(
    { name: 'shipyard-test', version: '0.0.0' },
    roots ? { capabilities: { roots: {} } } : {},
  );
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
  }
  await client.connect(clientTransport);
  const originalClose = client.close.bind(client);
  return Object.assign(client, {
    runtime,
    close: async () => {
      await originalClose();
      await runtime.close({ drainMs: 1_000 });
    },
  });
}

export interface SpawnOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Collect the server's stderr here. */
  stderr?: string[];
}

/** Spawn a built bin (`node <binPath> ...args`) and connect a Client to it over stdio. */
export async function spawnServer(
  binPath: string,
  args: string[] = [],
  options: SpawnOptions = {},
): Promise<Client> {
  const env = processEnv();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binPath, ...args],
    env: { ...env, ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => options.stderr?.push(chunk.toString('utf8')));
  const client = new Client({ name: 'shipyard-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** Collect the URIs of `notifications/resources/updated` the client receives, in order. */
export function watchResourceUpdates(client: Client): string[] {
  const uris: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    uris.push(notification.params.uri);
  });
  return uris;
}

function processEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

export interface HttpServerProcess {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  child: ChildProcess;
  stderr: string[];
  /** SIGTERM the process and wait for its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Spawn a built bin with `--transport http --port 0` (plus args) and wait until it says where it listens.
 */
export async function spawnHttpServer(
  binPath: string,
  args: string[] = [],
  options: SpawnOptions & { timeoutMs?: number } = {},
): Promise<HttpServerProcess> {
  const stderr = options.stderr ?? [];
  const child = spawn(process.execPath, [binPath, '--transport', 'http', '--port', '0', ...args], {
    env: { ...processEnv(), ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // 'close', not 'exit': the last of stderr may still be in the pipe at 'exit', and the error quotes it.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line in time:\n${stderr.join('')}`)),
      options.timeoutMs ?? 15_000,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(chunk.toString('utf8'));
      const match = /listening on (http:\/\/\S+)/.exec(stderr.join(''));
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stderr.join('')}`));
    });
  });
  return {
    url,
    child,
    stderr,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A Client over Streamable HTTP, with an optional bearer token. */
export async function connectHttp(url: string, options: { token?: string } = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.token ? { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } } : {}),
  });
  const client = new Client({ name: 'shipyard-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}
