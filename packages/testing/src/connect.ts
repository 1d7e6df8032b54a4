import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createLogger, Runtime, type RuntimeOptions, type ServerDefinition } from '@shipyard/core';

export interface ConnectOptions extends Omit<RuntimeOptions, 'logger'> {
  /** Capture the server's log lines here instead of writing them to stderr. */
  logs?: string[];
}

export interface Connected extends Client {
  /** The runtime behind the client (to check sessions, or call changed()). */
  runtime: Runtime;
}

/** A real MCP Client talking to the definition over the in-memory transport. Close it with `client.close()`. */
export async function connect(definition: ServerDefinition, options: ConnectOptions = {}): Promise<Connected> {
  const { logs, ...runtimeOptions } = options;
  const logger = createLogger(definition.name, {
    level: logs ? 'debug' : 'error',
    write: (line) => (logs ? logs.push(line) : process.stderr.write(line)),
  });
  const runtime = new Runtime(definition, { ...runtimeOptions, logger });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await runtime.connect(serverTransport);
  const client = new Client({ name: 'shipyard-test', version: '0.0.0' });
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
export async function spawnServer(binPath: string, args: string[] = [], options: SpawnOptions = {}): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
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
