import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  EmptyResultSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defineServer, defineTool, type ServerDefinition, z } from '../src/index.js';
import { createLogger, redactor } from '../src/logger.js';
import { connect, expectRpcError, expectToolOk, type Harness } from './helpers.js';

const SECRET = 's3cr3t-http-token';

const logEach = defineTool({
  name: 'log_each',
  title: 'Log at each level',
  description: 'Log one event at each level, then return how many. Use it to test logging.',
  input: {},
  output: { logged: z.number() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(_input, ctx) {
    ctx.log.debug('debug event');
    ctx.log.info('info event', { ticket: 'SHIP-1' });
    ctx.log.warn('warn event');
    ctx.log.error('error event');
    return { logged: 4 };
  },
});

const logSecrets = defineTool({
  name: 'log_secrets',
  title: 'Log secrets',
  description: 'Log a message and fields that hold secrets. Use it to test redaction.',
  input: {},
  output: { ok: z.boolean() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(_input, ctx) {
    ctx.log.warn(`calling upstream with Authorization: Bearer abc.def-ghi and ${SECRET}`, {
      headers: { Authorization: `Bearer ${SECRET}`, accept: 'application/json' },
      apiKey: 'k-123456',
      note: `the token is ${SECRET}`,
      error: new Error(`refused ${SECRET}`),
      tokens: 120,
    });
    return { ok: true };
  },
});

function server(): ServerDefinition {
  return defineServer({ name: 'logs', version: '1.0.0', deps: {}, tools: [logEach, logSecrets] });
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function messages(client: Client): LoggingMessageNotification['params'][] {
  const seen: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.push(n.params);
  });
  return seen;
}

describe('MCP logging', () => {
  it('sends what a tool logs at or above the level the client set, named by MCP level, from the server', async () => {
    harness = await connect(server());
    const seen = messages(harness.client);
    await harness.client.setLoggingLevel('warning');
    expectToolOk(await harness.client.callTool({ name: 'log_each', arguments: {} }));
    expect(seen).toEqual([
      { level: 'warning', logger: 'logs', data: 'warn event' },
      { level: 'error', logger: 'logs', data: 'error event' },
    ]);

    seen.length = 0;
    await harness.client.setLoggingLevel('notice');
    await harness.client.callTool({ name: 'log_each', arguments: {} });
    expect(seen.map((m) => m.level)).toEqual(['warning', 'error']);

    seen.length = 0;
    await harness.client.setLoggingLevel('info');
    await harness.client.callTool({ name: 'log_each', arguments: {} });
    expect(seen).toEqual([
      { level: 'info', logger: 'logs', data: { ticket: 'SHIP-1', message: 'info event' } },
      { level: 'warning', logger: 'logs', data: 'warn event' },
      { level: 'error', logger: 'logs', data: 'error event' },
    ]);

    seen.length = 0;
    await harness.client.setLoggingLevel('critical');
    await harness.client.callTool({ name: 'log_each', arguments: {} });
    expect(seen).toEqual([]);
    // Stderr logs every event still, at its own level.
    expect(harness.logs.filter((line) => / \[logs\] \w+ event/.test(line))).toHaveLength(16);
  });

  it('starts each session at the level of the server log, and keeps each session to its own level', async () => {
    harness = await connect(server());
    // The harness logs at debug: a fresh session hears everything.
    const first = messages(harness.client);
    const other = await harness.connectClient();
    const second = messages(other);
    await other.setLoggingLevel('error');
    await harness.client.callTool({ name: 'log_each', arguments: {} });
    await other.callTool({ name: 'log_each', arguments: {} });
    expect(first.map((m) => m.level)).toEqual(['debug', 'info', 'warning', 'error']);
    expect(second.map((m) => m.level)).toEqual(['error']);
  });

  it('refuses a level MCP does not name', async () => {
    harness = await connect(server());
    await expectRpcError(
      harness.client.request({ method: 'logging/setLevel', params: { level: 'warn' } }, EmptyResultSchema),
      -32602,
    );
  });

  it('sends no secret to the client nor to stderr', async () => {
    harness = await connect(server(), { secrets: [SECRET] });
    const seen = messages(harness.client);
    expectToolOk(await harness.client.callTool({ name: 'log_secrets', arguments: {} }));
    expect(seen).toHaveLength(1);
    const sent = JSON.stringify(seen);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain('abc.def-ghi');
    expect(sent).not.toContain('k-123456');
    expect(seen[0]?.data).toMatchObject({
      headers: { Authorization: '[redacted]', accept: 'application/json' },
      apiKey: '[redacted]',
      note: 'the token is [redacted]',
      error: { name: 'Error', message: 'refused [redacted]' },
      tokens: 120,
      message: 'calling upstream with Authorization: Bearer [redacted] and [redacted]',
    });
  });

  it('keeps secrets out of stderr lines', () => {
    const lines: string[] = [];
    const log = createLogger('logs', { write: (line) => lines.push(line), secrets: [SECRET, undefined] });
    log.error(`failed with bearer ${SECRET}; retrying ${SECRET}`, {
      authorization: `Bearer ${SECRET}`,
      cause: new Error(`token ${SECRET} refused`),
      nested: [{ password: 'hunter22', user: 'ada' }],
    });
    const line = lines.join('');
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain('hunter22');
    expect(line).toContain('failed with bearer [redacted]; retrying [redacted]');
    expect(line).toContain('"user":"ada"');
    expect(redactor().text('Authorization: Bearer xyz')).toBe('Authorization: Bearer [redacted]');
  });
});
