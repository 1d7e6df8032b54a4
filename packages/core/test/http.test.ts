import { request as httpRequest } from 'node:http';
import { connect as connectSocket, createServer as createNetServer } from 'node:net';
import { JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, Runtime, startHttp } from '../src/index.js';
import { createSample, LEAKY_MESSAGE } from './fixtures/sample.js';
import { aroundSlowEcho, expectToolOk, trackSlowEcho } from './helpers.js';
import {
  cleanUp,
  connectHttp,
  handles,
  initializeBody,
  listen,
  logged,
  logs,
  MCP_HEADERS,
  newRuntime,
  raw,
  runtimes,
  serve,
  sessionHeaders,
} from './http-harness.js';

afterEach(cleanUp);

/** A tools/call of the sample's slow_echo, as a raw JSON-RPC request. */
const slowEcho = (id: number | string, text: string, ms = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow_echo', arguments: { text, ms } },
});

/** The sample, with slow_echo held until `release` is called (after it has logged that it started). */
function gatedSample(): { definition: ReturnType<typeof createSample>; release: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const definition = aroundSlowEcho(createSample(), async (run) => {
    const result = await run();
    await gate;
    return result;
  });
  return { definition, release: () => open() };
}

/** Find a port that is free right now. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Streamable HTTP', () => {
  it('serves a client: initialize, tools, resources, prompts', async () => {
    const { handle } = await serve();
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}/mcp`);
    const { client, transport } = await connectHttp(handle);
    expect(transport.sessionId).toEqual(expect.any(String));
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-sample', version: '1.2.3' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo_text');
    const result = expectToolOk(
      await client.callTool({ name: 'echo_text', arguments: { text: 'over http' } }),
    );
    expect(result).toEqual({ text: 'over http', user: null });
    const read = await client.readResource({ uri: 'notes://a1' });
    expect(read.contents).toEqual([{ uri: 'notes://a1', mimeType: 'text/plain', text: 'first note' }]);
    const prompt = await client.getPrompt({ name: 'review-note', arguments: { id: 'a1' } });
    expect(prompt.messages[0]?.content).toEqual({
      type: 'text',
      text: 'Read note a1 with `echo_text`. It is below.',
    });
    expect(handle.sessions()).toBe(1);
  });

  it('serves 50 concurrent sessions, each answered with its own result', async () => {
    const { handle, runtime } = await serve();
    const count = 50;
    const results = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const { client, transport } = await connectHttp(handle);
        const result = await client.callTool({ name: 'echo_text', arguments: { text: `client-${i}` } });
        return { sessionId: transport.sessionId, value: expectToolOk<{ text: string }>(result).text };
      }),
    );
    expect(results.map((r) => r.value)).toEqual(Array.from({ length: count }, (_, i) => `client-${i}`));
    expect(new Set(results.map((r) => r.sessionId)).size).toBe(count);
    expect(handle.sessions()).toBe(count);
    expect(runtime.sessionCount).toBe(count);
  }, 60_000);

  it('ends a session on DELETE; a later request with that id gets 404', async () => {
    const { handle, runtime } = await serve();
    const { client, transport } = await connectHttp(handle);
    await connectHttp(handle);
    expect(handle.sessions()).toBe(2);
    const sessionId = transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    await transport.terminateSession();
    expect(handle.sessions()).toBe(1);
    expect(runtime.sessionCount).toBe(1);
    const after = await raw(handle.port, {
      headers: {
        ...MCP_HEADERS,
        'mcp-session-id': sessionId as string,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  it('answers 404 to an unknown session id', async () => {
    const { handle } = await serve();
    const response = await raw(handle.port, {
      headers: { ...MCP_HEADERS, 'mcp-session-id': 'no-such-session' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringMatching(/initialize/) },
    });
  });

  it('refuses a body nested deeper than 64 levels before parsing it, and goes on serving', async () => {
    const { handle } = await serve();
    const headers = await sessionHeaders(handle.port);
    const deep = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const refused = await raw(handle.port, { headers, body: deep });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/deeper than 64/),
    });
    // 63 levels inside params (65 with the message and params objects) is refused; 62 (64) is taken.
    const edge = (levels: number) =>
      `{"jsonrpc":"2.0","id":8,"method":"ping","params":{"_meta":{},"x":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
    expect((await raw(handle.port, { headers, body: edge(63) })).status).toBe(400);
    const taken = await raw(handle.port, { headers, body: edge(62) });
    expect(taken.status).toBe(200);
    const ping = await raw(handle.port, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    });
    expect(ping.status).toBe(200);
  });

  it('answers 400 to a non-initialize POST without a session', async () => {
    const { handle } = await serve();
    const response = await raw(handle.port, {
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.message).toMatch(/initialize/);
    expect(handle.sessions()).toBe(0);
  });

  it('answers an initialize with bad params -32602 naming them, and opens no session', async () => {
    const { handle } = await serve();
    const bad = { ...initializeBody(), params: { protocolVersion: 5, capabilities: {} } };
    const response = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(bad) });
    expect(response.status).toBe(400);
    const { error } = JSON.parse(response.body) as { error: { code: number; message: string } };
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params for initialize: .*protocolVersion.*clientInfo/);
    expect(JSON.parse(response.body).id).toBe(1);
    expect(handle.sessions()).toBe(0);
  });

  it('tells a body the SDK would call a parse error, or run and lose an answer of, what is wrong', async () => {
    const { handle } = await serve();
    const headers = await sessionHeaders(handle.port);
    const post = async (body: unknown, withSession = true) => {
      const response = await raw(handle.port, {
        headers: withSession ? headers : MCP_HEADERS,
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      return JSON.parse(response.body) as { id: unknown; error: { code: number; message: string } };
    };
    expect(await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: [] })).toMatchObject({
      id: 3,
      error: { code: -32602, message: 'Invalid params for tools/list: params must be an object' },
    });
    expect(await post({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toMatchObject({
      id: null,
      error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' },
    });
    // The transport answers by id: a second request with one would run and its answer be lost.
    const twice = [
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'echo_text', arguments: { text: 'x' } },
      },
      { jsonrpc: '2.0', id: 8, method: 'ping' },
    ];
    expect((await post(twice)).error).toEqual({
      code: -32600,
      message: 'Invalid Request: id 8 is used twice in the batch',
    });
    expect((await post([])).error.message).toBe('Invalid Request: an empty batch');
    expect((await post(null, false)).error.message).toBe(
      'Invalid Request: the body is not a JSON-RPC 2.0 message',
    );
    const { params } = initializeBody();
    expect((await post({ jsonrpc: '2.0', method: 'initialize', params }, false)).error.message).toBe(
      'Invalid Request: initialize must be a request, with an id',
    );
    expect(handle.sessions()).toBe(1);
  });

  it('takes the responses the SDK takes, and tells one it would call a parse error what is wrong', async () => {
    const { handle } = await serve();
    const headers = await sessionHeaders(handle.port);
    const shapes = [
      { id: 1, result: {} },
      { id: 'a', result: { x: [1], _meta: { progressToken: 'p' } } },
      { id: 1, error: { code: -1, message: 'no', data: { a: 1 } } },
      { error: { code: 5, message: 'no id', extra: 1 } },
      { id: 1, result: 5 },
      { id: 1, result: [] },
      { id: null, result: {} },
      { id: 1.5, result: {} },
      { result: {} },
      { id: 1, result: {}, extra: 1 },
      { id: 1, result: { _meta: 'x' } },
      { id: 1, result: { _meta: { progressToken: {} } } },
      { id: 1, error: 'x' },
      { id: 1, error: { code: 1.5, message: 'x' } },
      { id: 1, error: { code: 2 ** 60, message: 'x' } },
      { id: 1, error: { code: 1 } },
      { id: null, error: { code: 1, message: 'x' } },
      { id: 1, result: {}, error: { code: 1, message: 'x' } },
    ].map((shape) => ({ jsonrpc: '2.0', ...shape }));
    // The first four are responses to the SDK; the rest it calls a parse error.
    expect(shapes.map((shape) => JSONRPCMessageSchema.safeParse(shape).success)).toEqual(
      shapes.map((_, i) => i < 4),
    );
    for (const shape of shapes) {
      const response = await raw(handle.port, { headers, body: JSON.stringify(shape) });
      const taken = JSONRPCMessageSchema.safeParse(shape).success;
      expect(response.status, JSON.stringify(shape)).toBe(taken ? 202 : 400);
      if (!taken) {
        expect(JSON.parse(response.body).error, JSON.stringify(shape)).toEqual({
          code: -32600,
          message:
            'Invalid Request: a response needs an id and a result object, or an error with an integer code and a string message',
        });
      }
    }
  });

  it('initializes a session from a raw POST and returns its Mcp-Session-Id', async () => {
    const { handle } = await serve();
    const response = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    expect(response.status).toBe(200);
    expect(response.headers['mcp-session-id']).toEqual(expect.any(String));
    expect(response.body).toContain('shipyard-sample');
    expect(handle.sessions()).toBe(1);
  });

  it('passes a lone half of a surrogate pair on as U+FFFD, as stdio does', async () => {
    const { handle } = await serve();
    const init = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    const session = { ...MCP_HEADERS, 'mcp-session-id': String(init.headers['mcp-session-id']) };
    const body =
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_text","arguments":{"text":"cut \\uD83D"}}}';
    const response = await raw(handle.port, { headers: session, body });
    expect(response.status).toBe(200);
    expect(response.body).toContain('"structuredContent":{"text":"cut \uFFFD"');
  });

  it('closes the session idle longest to make room past maxSessions, GET stream or not', async () => {
    // No grace for new sessions here: the second is closed at once when it is the idlest. One client (one
    // address), allowed the whole table.
    const { handle } = await serve({ maxSessions: 2, maxSessionsPerClient: 2, newSessionGraceMs: 0 });
    const open = async () => {
      const response = await raw(handle.port, {
        headers: MCP_HEADERS,
        body: JSON.stringify(initializeBody()),
      });
      return { status: response.status, id: response.headers['mcp-session-id'] as string };
    };
    const ask = (id: string) =>
      raw(handle.port, {
        headers: { ...MCP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
    const [first, second] = [await open(), await open()];
    await ask(second.id);
    const third = await open();
    expect(handle.sessions()).toBe(2);
    expect((await ask(first.id)).status).toBe(404);
    expect((await ask(second.id)).status).toBe(200);
    // A GET stream open on each session keeps none of them: the one with the oldest request goes.
    const streams = await Promise.all([second.id, third.id].map((id) => listen(handle.port, id)));
    try {
      await ask(second.id);
      const fourth = await open();
      expect(fourth.status).toBe(200);
      expect(handle.sessions()).toBe(2);
      expect((await ask(third.id)).status).toBe(404);
      expect((await ask(second.id)).status).toBe(200);
    } finally {
      for (const stream of streams) stream.destroy();
    }
  });

  it('makes room only for an accepted initialize, and never by closing a session that runs a call', async () => {
    const { definition, release } = gatedSample();
    const { handle } = await serve({ maxSessions: 1, newSessionGraceMs: 0 }, definition);
    const init = (accept = MCP_HEADERS.accept) =>
      raw(handle.port, { headers: { ...MCP_HEADERS, accept }, body: JSON.stringify(initializeBody()) });
    const first = (await init()).headers['mcp-session-id'] as string;
    // A refused initialize (a wrong Accept) closes nothing.
    expect((await init('text/plain')).status).toBe(406);
    expect(handle.sessions()).toBe(1);
    const call = raw(handle.port, {
      headers: { ...MCP_HEADERS, 'mcp-session-id': first, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow_echo', arguments: { text: 'busy', ms: 0 } },
      }),
    });
    // The call has reached the tool, and is held there until released.
    await logged('slow_echo started: busy');
    // The only session is running a call: not idle, so a new session is refused.
    expect((await init()).status).toBe(503);
    expect(handle.sessions()).toBe(1);
    release();
    expect((await call).body).toContain('busy');
    // Now it is idle, and makes room.
    expect((await init()).status).toBe(200);
    expect(handle.sessions()).toBe(1);
  });

  it('refuses a request whose id a request of the same session still being answered has', async () => {
    const { definition, release } = gatedSample();
    const { handle } = await serve({}, definition);
    const headers = await sessionHeaders(handle.port);
    const call = (id: number | string, text: string) =>
      raw(handle.port, {
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'slow_echo', arguments: { text, ms: 0 } },
        }),
      });
    const first = call(7, 'first');
    await logged('slow_echo started: first');
    const again = await call(7, 'again');
    expect(again.status).toBe(400);
    expect(JSON.parse(again.body)).toMatchObject({
      id: 7,
      error: {
        code: -32600,
        message: 'Invalid Request: id 7 is in use by a request of this session still being answered',
      },
    });
    // Another id, or the same id as a string, is another request.
    const other = call('7', 'other');
    await logged('slow_echo started: other');
    release();
    expect((await first).body).toContain('"text":"first"');
    expect((await other).body).toContain('"text":"other"');
    // Answered, the id may be used again.
    expect((await call(7, 'later')).body).toContain('"text":"later"');
  });

  it('holds the ids of a batch until all of it is answered, and none the transport refused', async () => {
    const { definition, release } = gatedSample();
    const { handle } = await serve({}, definition);
    const headers = await sessionHeaders(handle.port);
    const slow = (id: number, text: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'slow_echo', arguments: { text, ms: 0 } },
    });
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
    // Refused on its headers, a request never reached the transport: its id is free.
    const refused = await raw(handle.port, {
      headers: { ...headers, accept: 'application/json' },
      body: JSON.stringify(list(1)),
    });
    expect(refused.status).toBe(406);
    expect((await raw(handle.port, { headers, body: JSON.stringify(list(1)) })).status).toBe(200);
    // id 3 is answered at once, but its batch waits for id 4: the transport keeps both until then.
    const batch = raw(handle.port, { headers, body: JSON.stringify([list(3), slow(4, 'batched')]) });
    await logged('slow_echo started: batched');
    const again = await raw(handle.port, { headers, body: JSON.stringify([slow(3, 'again')]) });
    expect(again.status).toBe(400);
    expect(again.body).toContain('id 3 is in use');
    release();
    const answered = await batch;
    expect(answered.body).toContain('"id":3');
    expect(answered.body).toContain('"text":"batched"');
  });

  it('holds the id of a request whose client went away until the request is answered', async () => {
    // Also what tells that the SDK's transport still keeps its request map where core reads it
    // (transportHolds): without it the id would be taken again as soon as the POST closed.
    const { definition, release } = gatedSample();
    const { handle } = await serve({}, definition);
    const headers = await sessionHeaders(handle.port);
    const body = (text: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow_echo', arguments: { text, ms: 0 } },
      });
    const gone = httpRequest({ host: '127.0.0.1', port: handle.port, method: 'POST', path: '/mcp', headers });
    gone.on('error', () => {});
    gone.end(body('gone'));
    await logged('slow_echo started: gone');
    gone.destroy();
    // Its call still runs: a request with its id would be given that call's answer.
    const again = await raw(handle.port, { headers, body: body('again') });
    expect(again.status).toBe(400);
    expect(again.body).toContain('id 7 is in use');
    release();
    await expect
      .poll(async () => (await raw(handle.port, { headers, body: body('later') })).body, { timeout: 10_000 })
      .toContain('"text":"later"');
  });

  it('answers a cancelled request, so its POST ends and its id is free again', async () => {
    const { definition } = gatedSample();
    const { handle } = await serve({}, definition);
    const headers = await sessionHeaders(handle.port);
    const post = (message: object) => raw(handle.port, { headers, body: JSON.stringify(message) });
    const call = post(slowEcho(7, 'cancelled'));
    await logged('slow_echo started: cancelled');
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    expect((await post(cancel)).status).toBe(202);
    // The SDK answers nothing for it (its handler is still held), and its transport would keep the POST
    // open and the id taken for the rest of the session.
    const answered = await call;
    expect(answered.body).toContain('"error":{"code":-32800,"message":"Request cancelled"}');
    expect(answered.body).not.toContain('"text":"cancelled"');
    expect((await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' })).body).toContain('"tools"');
    // A cancel for a request already answered, or for none, changes nothing.
    expect((await post(cancel)).status).toBe(202);
    expect((await post({ jsonrpc: '2.0', id: 8, method: 'tools/list' })).body).toContain('"tools"');
    // A batch whose cancel comes before its request: the SDK aborts the request as it starts.
    const cancelFirst = await post([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
      slowEcho(9, 'nine'),
    ]);
    expect(cancelFirst.body).toContain('"error":{"code":-32800,"message":"Request cancelled"}');
    expect((await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' })).body).toContain('"tools"');
  });

  it('answers no cancel the SDK ignores: the call it goes on running has its one answer', async () => {
    const { definition, release } = gatedSample();
    const { handle } = await serve({}, definition);
    const headers = await sessionHeaders(handle.port);
    const post = (message: object) => raw(handle.port, { headers, body: JSON.stringify(message) });
    const call = (id: number, text: string) => post(slowEcho(id, text));
    const cancel = (params: object) => post({ jsonrpc: '2.0', method: 'notifications/cancelled', params });
    // The SDK takes no cancel of id 0, nor one whose reason is not a text.
    const zero = call(0, 'zero');
    const five = call(5, 'five');
    await logged('slow_echo started: zero');
    await logged('slow_echo started: five');
    expect((await cancel({ requestId: 0 })).status).toBe(202);
    expect((await cancel({ requestId: 5, reason: 42 })).status).toBe(202);
    // Another request in between: the cancels have been dispatched by the time it is answered.
    expect((await post({ jsonrpc: '2.0', id: 8, method: 'tools/list' })).body).toContain('"tools"');
    release();
    for (const [answer, text] of [
      [await zero, 'zero'],
      [await five, 'five'],
    ] as const) {
      expect(answer.body).toContain(`"text":"${text}"`);
      expect(answer.body).not.toContain('-32800');
    }
  });

  it('lets an SDK client that cancelled a call go on, and a shutdown not wait for that call', async () => {
    const { definition } = gatedSample();
    const { handle } = await serve({}, definition);
    const { client } = await connectHttp(handle);
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow_echo', arguments: { text: 'abandoned', ms: 0 } }, undefined, {
      signal: controller.signal,
    });
    await logged('slow_echo started: abandoned');
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // The held call's POST has ended: nothing is left in flight for a close to wait on (the handler is
    // never released, so without that this would wait the whole drain, past the test's timeout).
    await handle.close({ drainMs: 60_000 });
    handles.splice(handles.indexOf(handle), 1);
  });

  it('keeps a session just opened when a burst of clients passes maxSessions: the newcomers get 503', async () => {
    // One client (one address), allowed the whole table.
    const { handle } = await serve({ maxSessions: 3, maxSessionsPerClient: 3 });
    const burst = await Promise.all(
      Array.from({ length: 8 }, () =>
        raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) }),
      ),
    );
    const opened = burst.filter((response) => response.status === 200);
    expect(opened).toHaveLength(3);
    expect(burst.filter((response) => response.status === 503)).toHaveLength(5);
    expect(handle.sessions()).toBe(3);
    // Every session a client was given still answers.
    for (const response of opened) {
      const ping = await raw(handle.port, {
        headers: {
          ...MCP_HEADERS,
          'mcp-session-id': String(response.headers['mcp-session-id']),
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      expect(ping.status).toBe(200);
    }
  });

  it('answers a request still arriving when it closes, then closes', async () => {
    const { handle } = await serve();
    const { status, headers } = await raw(handle.port, {
      headers: MCP_HEADERS,
      body: JSON.stringify(initializeBody()),
    });
    expect(status).toBe(200);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo_text', arguments: { text: 'made it' } },
    });
    let closing: Promise<void> | undefined;
    const answered = new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: handle.port,
          method: 'POST',
          path: '/mcp',
          agent: false,
          headers: {
            ...MCP_HEADERS,
            // The server answers 100 Continue as it hands the request to its handler: the signal that the
            // request has arrived (and counts as in flight) while its body has not.
            expect: '100-continue',
            'content-length': Buffer.byteLength(body),
            'mcp-session-id': headers['mcp-session-id'] as string,
            'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.on('continue', () => {
        // Half the body, then the close, then the rest.
        req.write(body.slice(0, 20));
        closing = handle.close({ drainMs: 5_000 });
        req.end(body.slice(20));
      });
      req.flushHeaders();
    });
    expect(await answered).toContain('made it');
    await closing;
    handles.splice(handles.indexOf(handle), 1);
    await expect(fetch(`http://127.0.0.1:${handle.port}/healthz`)).rejects.toThrow();
  });

  it('answers a request that comes while it drains 503 (-32000), on a connection it then closes', async () => {
    const { definition, release } = gatedSample();
    const { handle } = await serve({}, definition);
    const headers = await sessionHeaders(handle.port);
    const call = raw(handle.port, { headers, body: JSON.stringify(slowEcho(2, 'draining')) });
    await logged('slow_echo started: draining');
    const closing = handle.close({ drainMs: 10_000 });
    handles.splice(handles.indexOf(handle), 1);
    // Still listening: a new request is told, rather than its connection reset unanswered.
    const late = await raw(handle.port, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(late.status).toBe(503);
    expect(late.headers.connection).toBe('close');
    expect(JSON.parse(late.body)).toMatchObject({
      error: { code: -32000, message: expect.stringContaining('shutting down') },
    });
    release();
    expect((await call).body).toContain('"text":"draining"');
    await closing;
  });

  it('gives up waiting for a hung request after drainMs: close resolves before the call would answer', async () => {
    // A server-side signal for the end of the call: its handler returning.
    const { definition, returned } = trackSlowEcho(createSample());
    const { handle } = await serve({}, definition);
    const init = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    const call = raw(handle.port, {
      headers: {
        ...MCP_HEADERS,
        'mcp-session-id': init.headers['mcp-session-id'] as string,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'slow_echo', arguments: { text: 'hung', ms: 5_000 } },
      }),
    }).then(
      (response) => response.body,
      (error: Error) => error.message,
    );
    await logged('slow_echo started: hung');
    const closing = handle.close({ drainMs: 100 });
    handles.splice(handles.indexOf(handle), 1);
    expect(await Promise.race([closing.then(() => 'closed' as const), returned])).toBe('closed');
    // The request was told it will not be answered, rather than left with a stream that ends in nothing.
    const body = await call;
    expect(body).not.toContain('"text":"hung"');
    expect(body).toContain('"id":2,"error":{"code":-32000,"message":"The server is shutting down');
  });

  it('refuses a foreign Host header with 403 (DNS rebinding)', async () => {
    const { handle } = await serve();
    const evil = await raw(handle.port, {
      headers: { ...MCP_HEADERS, host: `evil.example:${handle.port}` },
      body: JSON.stringify(initializeBody()),
    });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatch(/Host/);
    const local = await raw(handle.port, {
      path: '/healthz',
      method: 'GET',
      headers: { host: `localhost:${handle.port}` },
    });
    expect(local.status).toBe(200);
    expect(handle.sessions()).toBe(0);
  });

  it('accepts an extra Host name from allowedHosts, on any port a proxy or port mapping gives it', async () => {
    const { handle } = await serve({ allowedHosts: ['mcp.example'] });
    for (const host of [`mcp.example:${handle.port}`, 'mcp.example', 'MCP.example:443', 'localhost:8080']) {
      const ok = await raw(handle.port, { path: '/healthz', method: 'GET', headers: { host } });
      expect(ok.status, host).toBe(200);
    }
    const evil = await raw(handle.port, {
      path: '/healthz',
      method: 'GET',
      headers: { host: 'evil.example' },
    });
    expect(evil.status).toBe(403);
  });

  it('says so when a request has no Host header at all', async () => {
    const { handle } = await serve();
    // HTTP/1.0 may leave Host out; a client library always sends one, so a raw socket.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connectSocket(handle.port, '127.0.0.1', () =>
        socket.end('GET /healthz HTTP/1.0\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.[01] 403/);
    expect(answer).toContain('Forbidden: the request has no Host header');
  });

  it('refuses a foreign Origin with 403', async () => {
    const { handle } = await serve();
    const evil = await raw(handle.port, {
      headers: { ...MCP_HEADERS, origin: 'https://evil.example' },
      body: JSON.stringify(initializeBody()),
    });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatch(/Origin/);
    const local = await raw(handle.port, {
      headers: { ...MCP_HEADERS, origin: `http://localhost:${handle.port}` },
      body: JSON.stringify(initializeBody()),
    });
    expect(local.status).toBe(200);
  });

  it('refuses an Origin with a scheme other than http(s), even on an allowed host, with 403', async () => {
    const { handle } = await serve();
    for (const origin of [
      'chrome-extension://localhost',
      `ws://127.0.0.1:${handle.port}`,
      'ftp://localhost',
    ]) {
      const refused = await raw(handle.port, {
        headers: { ...MCP_HEADERS, origin },
        body: JSON.stringify(initializeBody()),
      });
      expect(refused.status, origin).toBe(403);
      expect(refused.body, origin).toMatch(/Origin/);
    }
    expect(handle.sessions()).toBe(0);
    const https = await raw(handle.port, {
      headers: { ...MCP_HEADERS, origin: 'https://localhost' },
      body: JSON.stringify(initializeBody()),
    });
    expect(https.status).toBe(200);
  });

  it('answers 500 with a bare JSON-RPC internal error when handling a request throws', async () => {
    const { handle, runtime } = await serve();
    runtime.connect = async () => {
      throw new Error(LEAKY_MESSAGE);
    };
    const response = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(response.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal error' },
      id: null,
    });
    expect(response.body).not.toMatch(/hunter2|sqlite|\/srv\//i);
    // The error itself goes to the log.
    expect(logs.join('\n')).toContain('http request failed');
    expect(handle.sessions()).toBe(0);
  });

  it('answers GET /healthz with 200 JSON', async () => {
    const { handle } = await serve();
    const response = await fetch(`http://127.0.0.1:${handle.port}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ status: 'ok', server: 'sample', replica: handle.replica });
    const other = await fetch(`http://127.0.0.1:${handle.port}/elsewhere`);
    expect(other.status).toBe(404);
  });

  it('answers 413 to a body over the limit', async () => {
    const { handle } = await serve({ maxBodyBytes: 1_024 });
    const body = JSON.stringify({ ...initializeBody(), padding: 'x'.repeat(4_096) });
    const response = await raw(handle.port, { headers: MCP_HEADERS, body });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.message).toContain('1024');
    expect(handle.sessions()).toBe(0);
    // A body under the limit still works.
    const ok = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    expect(ok.status).toBe(200);
  });

  it('answers 413 at once to a Content-Length over the limit, before the body comes', async () => {
    const { handle } = await serve({ maxBodyBytes: 1_024 });
    // One byte of a declared 10 MB: without the check, the server waits for the rest for ever.
    const headers = { ...MCP_HEADERS, 'content-length': '10000000' };
    const response = await raw(handle.port, { headers, body: '{' });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: -32600 }, id: null });
  });

  it('answers 400 with a JSON-RPC parse error to invalid JSON', async () => {
    const { handle } = await serve();
    const response = await raw(handle.port, { headers: MCP_HEADERS, body: '{"jsonrpc": "2.0", "id": 1,' });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: -32700 } });
  });

  it('keeps nothing for an initialize the transport refuses (wrong Accept)', async () => {
    const { handle, runtime } = await serve();
    for (let i = 0; i < 20; i++) {
      const refused = await raw(handle.port, {
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(initializeBody()),
      });
      expect(refused.status).toBe(406);
    }
    expect(handle.sessions()).toBe(0);
    expect(runtime.sessionCount).toBe(0);
  });

  it('answers 405 to other methods', async () => {
    const { handle } = await serve();
    const response = await raw(handle.port, { method: 'PUT', headers: MCP_HEADERS, body: '{}' });
    expect(response.status).toBe(405);
  });

  describe('with a token', () => {
    const token = 'test-token-123';

    it('answers 401 with WWW-Authenticate without the right token, and serves with it', async () => {
      const { handle } = await serve({ token });
      const none = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const wrong = await raw(handle.port, {
        headers: { ...MCP_HEADERS, authorization: 'Bearer wrong-token-12' },
        body: JSON.stringify(initializeBody()),
      });
      expect(wrong.status).toBe(401);
      expect(wrong.headers['www-authenticate']).toMatch(/^Bearer/);
      const bare = await raw(handle.port, {
        headers: { ...MCP_HEADERS, authorization: token },
        body: JSON.stringify(initializeBody()),
      });
      expect(bare.status).toBe(401);
      expect(handle.sessions()).toBe(0);
      // The scheme is case-insensitive.
      const lower = await raw(handle.port, {
        headers: { ...MCP_HEADERS, authorization: `bearer ${token}` },
        body: JSON.stringify(initializeBody()),
      });
      expect(lower.status).toBe(200);
      expect(handle.sessions()).toBe(1);

      await expect(connectHttp(handle, { token: 'nope' })).rejects.toThrow();
      const { client } = await connectHttp(handle, { token });
      const result = expectToolOk(
        await client.callTool({ name: 'echo_text', arguments: { text: 'authed' } }),
      );
      expect(result.text).toBe('authed');
      expect(handle.sessions()).toBe(2);
    });

    it('starts on 0.0.0.0 with a token', async () => {
      const { handle } = await serve({ host: '0.0.0.0', token });
      expect(handle.url).toBe(`http://0.0.0.0:${handle.port}/mcp`);
      const health = await raw(handle.port, {
        path: '/healthz',
        method: 'GET',
        headers: { host: `127.0.0.1:${handle.port}` },
      });
      expect(health.status).toBe(200);
      const unauthorised = await raw(handle.port, {
        headers: { ...MCP_HEADERS, host: `127.0.0.1:${handle.port}` },
        body: JSON.stringify(initializeBody()),
      });
      expect(unauthorised.status).toBe(401);
    });
  });

  it('refuses a non-loopback host without a token, before listening', async () => {
    const runtime = newRuntime();
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      const port = await freePort();
      await expect(startHttp(runtime, { host, port }), host).rejects.toThrow(/SHIPYARD_HTTP_TOKEN/);
      if (host === '0.0.0.0') {
        // Nothing is listening: the same port can still be bound.
        const probe = createNetServer();
        await new Promise<void>((resolve, reject) => {
          probe.once('error', reject);
          probe.listen(port, '0.0.0.0', resolve);
        });
        await new Promise<void>((resolve) => probe.close(() => resolve()));
      }
    }
    await expect(startHttp(runtime, { host: '0.0.0.0', port: 0, token: '' })).rejects.toThrow(
      /SHIPYARD_HTTP_TOKEN/,
    );
  });

  it('refuses a token that starts or ends with a blank, before listening', async () => {
    const runtime = new Runtime(createSample(), { logger: createLogger('test', { level: 'silent' }) });
    runtimes.push(runtime);
    for (const token of ['   ', 'secret ', ' secret'])
      await expect(startHttp(runtime, { host: '0.0.0.0', port: 0, token })).rejects.toThrow(/blank/);
  });

  it('stops accepting connections after close', async () => {
    const { handle } = await serve();
    await connectHttp(handle);
    await handle.close();
    handles.splice(handles.indexOf(handle), 1);
    await expect(fetch(`http://127.0.0.1:${handle.port}/healthz`)).rejects.toThrow();
  });
});
