import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import {
  createLogger,
  type ErrorCode,
  Runtime,
  type RuntimeOptions,
  type ServerDefinition,
} from '../src/index.js';

/** The params of an `initialize` a raw client (no SDK client) sends. */
export const RAW_INITIALIZE_PARAMS = {
  protocolVersion: LATEST_PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'raw', version: '0' },
};

export interface Harness {
  runtime: Runtime;
  client: Client;
  /** Log lines the runtime wrote (level debug and up). */
  logs: string[];
  /** Another client on the same runtime (a second session). */
  connectClient(): Promise<Client>;
  close(): Promise<void>;
}

/** What @shipyard/testing's connect does, without the dependency cycle: Runtime + in-memory transport + Client. */
export async function connect(
  definition: ServerDefinition,
  options: Omit<RuntimeOptions, 'logger'> = {},
): Promise<Harness> {
  const logs: string[] = [];
  const logger = createLogger(definition.name, { level: 'debug', write: (line) => logs.push(line) });
  const runtime = new Runtime(definition, { ...options, logger });
  const clients: Client[] = [];
  const connectClient = async (): Promise<Client> => {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await runtime.connect(serverTransport);
    const client = new Client({ name: 'core-test', version: '0.0.0' });
    await client.connect(clientTransport);
    clients.push(client);
    return client;
  };
  const client = await connectClient();
  return {
    runtime,
    client,
    logs,
    connectClient,
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await runtime.close({ drainMs: 1_000 });
    },
  };
}

// @shipyard/testing has these helpers too, but it depends on core, so core's own tests cannot use it.
export interface ToolErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`expected a text block, got ${JSON.stringify(result)}`);
  return first.text;
}

/** Assert an isError result with this code; return its parsed error body. */
export function expectToolError(result: unknown, code: ErrorCode): ToolErrorBody {
  const r = result as CallToolResult;
  expect(r.isError, `expected an error result, got ${JSON.stringify(r)}`).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  const body = JSON.parse(textOf(r)) as { error: ToolErrorBody };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

/** Assert a success whose text copy is compact JSON equal to structuredContent; return the content. */
export function expectToolOk<T = Record<string, unknown>>(result: unknown): T {
  const r = result as CallToolResult;
  expect(r.isError ?? false, `expected success, got ${JSON.stringify(r)}`).toBe(false);
  expect(r.structuredContent).toBeDefined();
  const text = textOf(r);
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  expect(text).toBe(JSON.stringify(r.structuredContent));
  return r.structuredContent as T;
}

/** Assert a promise rejects with a JSON-RPC error of this code; return the error. */
export async function expectRpcError(
  promise: Promise<unknown>,
  code: number,
): Promise<Error & { code: number }> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected JSON-RPC error ${code}, but the request succeeded`).toBeInstanceOf(Error);
  const e = caught as Error & { code: number };
  expect(e.code, e.message).toBe(code);
  return e;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Poll until check() is true (no fixed sleeps: the machine may be slow). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

/**
 * The definition with its `slow_echo` tool run through `around` (which calls `run` for the real handler): a
 * patched copy, since the tool objects are shared by every createSample().
 */
export function aroundSlowEcho<D extends ServerDefinition>(
  definition: D,
  around: (run: () => Promise<Record<string, unknown>>) => Promise<Record<string, unknown>>,
): D {
  definition.tools = definition.tools.map((tool) =>
    tool.name === 'slow_echo'
      ? {
          ...tool,
          handler: (input: never, ctx: never) =>
            around(async () => (await tool.handler(input, ctx)) as Record<string, unknown>),
        }
      : tool,
  );
  return definition;
}

/** The definition, and a promise that settles when its `slow_echo` handler has returned (or thrown). */
export function trackSlowEcho<D extends ServerDefinition>(
  definition: D,
): { definition: D; returned: Promise<'call returned'> } {
  let handlerReturned!: () => void;
  const returned = new Promise<'call returned'>((resolve) => {
    handlerReturned = () => resolve('call returned');
  });
  aroundSlowEcho(definition, async (run) => {
    try {
      return await run();
    } finally {
      handlerReturned();
    }
  });
  return { definition, returned };
}
