import { connect as connectSocket, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { expectToolOk } from './helpers.js';
import {
  cleanUp,
  connectHttp,
  handles,
  initializeBody,
  logs,
  MCP_HEADERS,
  raw,
  serve,
  sessionHeaders,
  startFixture,
} from './http-harness.js';

const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await cleanUp();
});

/** A raw connection to the server; `closed` resolves with all the server sent once the connection closes. */
function rawConnection(port: number): { socket: Socket; closed: Promise<string> } {
  const socket = connectSocket(port, '127.0.0.1');
  sockets.push(socket);
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  // Writing after the server has closed the connection fails (EPIPE, ECONNRESET): the close is what counts.
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, closed };
}

/** Write `text` a character at a time every 50 ms until the connection closes (at most `max` characters). */
function trickle(socket: Socket, text: string, max = 600): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= max) return clearInterval(timer);
    socket.write(text[sent % text.length] as string);
    sent++;
  }, 50);
  socket.once('close', () => clearInterval(timer));
}

const POST_HEAD = (port: number, headers: Record<string, string>, length: number) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}Content-Length: ${length}\r\n\r\n`;

/** The one JSON-RPC error of a raw HTTP response. */
function errorOf(response: string): { status: number; message: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
  const body = response.slice(response.indexOf('\r\n\r\n') + 4);
  return { status, message: (JSON.parse(body) as { error: { message: string } }).error.message };
}

describe('HTTP requests cut short', () => {
  it('cuts off a body that stalls past the request timeout: 408, and the connection closed', async () => {
    const { handle } = await serve({ requestTimeoutMs: 1_000 });
    const headers = await sessionHeaders(handle.port);
    const { socket, closed } = rawConnection(handle.port);
    // Headers, the start of a body, then a byte now and then that never completes it.
    socket.write(`${POST_HEAD(handle.port, headers, 10_000)}{"jsonrpc":"2.0",`);
    trickle(socket, ' ');
    const response = await closed;
    expect(errorOf(response)).toEqual({
      status: 408,
      message:
        'Request timeout: its headers and body must arrive within 1 s (--request-timeout); send it again',
    });
    // The server goes on serving, and the session is untouched.
    const ping = await raw(handle.port, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    });
    expect(ping.status).toBe(200);
    await handle.close();
    handles.splice(handles.indexOf(handle), 1);
    expect(logs.filter((line) => line.includes('request timeout'))).toEqual([
      expect.stringMatching(
        /http: 1 request not arrived within the request timeout, closed \{"timedOut":1\}/,
      ),
    ]);
  });

  it('cuts off headers that trickle past the request timeout', async () => {
    const { handle } = await serve({ requestTimeoutMs: 1_000 });
    const { socket, closed } = rawConnection(handle.port);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${handle.port}\r\nX-Slow: `);
    trickle(socket, 'abcdefgh');
    expect(errorOf(await closed).status).toBe(408);
    expect((await raw(handle.port, { path: '/healthz', method: 'GET' })).status).toBe(200);
  });

  it('limits no answer: a call and a GET stream last past the request timeout', async () => {
    const { handle, runtime } = await serve({ requestTimeoutMs: 300 });
    const { client } = await connectHttp(handle);
    let heard = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
      heard++;
    });
    await client.subscribeResource({ uri: 'notes://index' });
    const result = await client.callTool({ name: 'slow_echo', arguments: { text: 'slow', ms: 1_500 } });
    expect(expectToolOk<{ text: string }>(result).text).toBe('slow');
    // The GET stream, open since before the call, still carries notifications.
    await expect
      .poll(
        () => {
          runtime.changed('notes://index');
          return heard;
        },
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
  });

  it('answers 400 to a request whose client ends its connection before the whole body, and counts it', async () => {
    const { handle } = await serve();
    const { socket, closed } = rawConnection(handle.port);
    socket.end(`${POST_HEAD(handle.port, MCP_HEADERS, 1_000)}{"jsonrpc":`);
    expect(errorOf(await closed)).toEqual({
      status: 400,
      message: 'Bad request: the connection ended before the whole request had arrived',
    });
    await handle.close();
    handles.splice(handles.indexOf(handle), 1);
    expect(logs.join('')).toContain(
      'http: 1 request cut off by the client before arriving whole {"aborted":1}',
    );
  });
});

describe('HTTP requests cut short, in a server process', () => {
  it('logs 500 aborted uploads as a summary with their count, and goes on serving', async () => {
    const server = await startFixture();
    const body = JSON.stringify(initializeBody());
    const abortOne = () =>
      new Promise<void>((resolve) => {
        const { socket, closed } = rawConnection(server.port);
        // Headers and part of the body, then the connection destroyed.
        socket.write(`${POST_HEAD(server.port, MCP_HEADERS, body.length)}${body.slice(0, 20)}`, () =>
          socket.destroy(),
        );
        void closed.then(() => resolve());
      });
    for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 50 }, abortOne));
    // A real client is served after them.
    const client = new Client({ name: 'after-aborts', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)));
    const result = await client.callTool({ name: 'slow_echo', arguments: { text: 'still serving', ms: 0 } });
    expect(expectToolOk<{ text: string }>(result).text).toBe('still serving');
    await client.close();
    expect(await server.stop()).toBe(0);
    const lines = server.stderr().trimEnd().split('\n');
    // The listening line, the summaries (one a minute at most; the last at shutdown), nothing per request.
    expect(lines.length).toBeLessThanOrEqual(5);
    const summaries = lines.filter((line) => line.includes('cut off by the client'));
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const counted = summaries.reduce((sum, line) => sum + Number(/"aborted":(\d+)/.exec(line)?.[1] ?? 0), 0);
    expect(counted).toBe(500);
  }, 60_000);

  it('takes the limits from its flags', async () => {
    const server = await startFixture(['--request-timeout', '0.5', '--max-sessions', '1']);
    const { socket, closed } = rawConnection(server.port);
    socket.write(POST_HEAD(server.port, MCP_HEADERS, 100));
    expect(errorOf(await closed)).toMatchObject({
      status: 408,
      message: expect.stringContaining('within 0.5 s'),
    });
    const init = () => raw(server.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    expect((await init()).status).toBe(200);
    const refused = await init();
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('Too many sessions (1)');
    expect(await server.stop()).toBe(0);
  });
});
