import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { defineServer, defineTool, type RunningServer, runServer, z } from '@shipyard/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callOk, connectHttp } from '../src/index.js';

const TOKEN = 'tok-4f9c2e7a-never-logged';

/** A tool that logs at each level, with the bearer header of its upstream call among the fields. */
const logEach = defineTool({
  name: 'log_each',
  title: 'Log at each level',
  description: 'Log one event at each level, then return how many. Use it to test logging.',
  input: {},
  output: { logged: z.number() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler(_input, ctx) {
    ctx.log.debug('debug event');
    ctx.log.info('info event');
    ctx.log.warn(`warn event, token ${TOKEN}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    ctx.log.error('error event');
    return { logged: 4 };
  },
});

function collect(client: Client): LoggingMessageNotification['params'][] {
  const seen: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    seen.push(n.params);
  });
  return seen;
}

let running: RunningServer | undefined;
let stderr: string[] = [];
beforeEach(() => {
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
  vi.restoreAllMocks();
});

describe('MCP logging over Streamable HTTP', () => {
  it('keeps a level per session, sends what is at or above it, and never the token', async () => {
    running = await runServer(defineServer({ name: 'logs', version: '1.0.0', deps: {}, tools: [logEach] }), {
      argv: ['--transport', 'http', '--port', '0', '--log-level', 'info'],
      env: { SHIPYARD_HTTP_TOKEN: TOKEN },
      exit: false,
    });
    const url = running?.http?.url;
    if (!url) throw new Error('no HTTP url');
    const quiet = await connectHttp(url, { token: TOKEN });
    const chatty = await connectHttp(url, { token: TOKEN });
    const fresh = await connectHttp(url, { token: TOKEN });
    try {
      const quietSeen = collect(quiet);
      const chattySeen = collect(chatty);
      const freshSeen = collect(fresh);
      await quiet.setLoggingLevel('error');
      await chatty.setLoggingLevel('debug');
      for (const client of [quiet, chatty, fresh]) await callOk(client, 'log_each');

      expect(quietSeen).toEqual([{ level: 'error', logger: 'logs', data: 'error event' }]);
      expect(chattySeen.map((m) => m.level)).toEqual(['debug', 'info', 'warning', 'error']);
      // A session that set no level hears what --log-level lets through.
      expect(freshSeen.map((m) => m.level)).toEqual(['info', 'warning', 'error']);
      expect(chattySeen[2]).toEqual({
        level: 'warning',
        logger: 'logs',
        data: { headers: { authorization: '[redacted]' }, message: 'warn event, token [redacted]' },
      });

      const everything = JSON.stringify([quietSeen, chattySeen, freshSeen]) + stderr.join('');
      expect(everything).not.toContain(TOKEN);
      // Stderr logs as before, at --log-level.
      expect(stderr.join('')).toMatch(/ warn \[logs\] warn event, token \[redacted\]/);
      expect(stderr.join('')).not.toContain('debug event');
    } finally {
      await Promise.allSettled([quiet.close(), chatty.close(), fresh.close()]);
    }
  });
});
