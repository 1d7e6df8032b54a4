import { randomUUID } from 'node:crypto';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createSample } from './fixtures/sample.js';
import { aroundSlowEcho, expectToolOk } from './helpers.js';
import {
  cleanUp,
  connectHttp,
  initializeBody,
  logged,
  MCP_HEADERS,
  raw,
  serve,
  startFixture,
} from './http-harness.js';

afterEach(cleanUp);

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('HTTP replicas', () => {
  it('starts every session id with the replica id, for a load balancer to route by', async () => {
    const { handle } = await serve({ replicaId: 'r7' });
    const { transport } = await connectHttp(handle);
    expect(transport.sessionId).toMatch(new RegExp(`^r7\\.${UUID}$`));
    const health = await raw(handle.port, { path: '/healthz', method: 'GET' });
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', replica: 'r7' });
  });

  it('takes a short random replica id of its own without one', async () => {
    const [a, b] = [(await serve()).handle, (await serve()).handle];
    expect(a.replica).toMatch(/^[0-9a-f]{8}$/);
    expect(b.replica).toMatch(/^[0-9a-f]{8}$/);
    expect(a.replica).not.toBe(b.replica);
    for (const handle of [a, b]) {
      const { transport } = await connectHttp(handle);
      expect(transport.sessionId).toMatch(new RegExp(`^${handle.replica}\\.${UUID}$`));
    }
  });

  it('answers a session id it does not hold (another replica’s) 404, telling the client to initialize again', async () => {
    const { handle } = await serve({ replicaId: 'r2' });
    const response = await raw(handle.port, {
      headers: {
        ...MCP_HEADERS,
        'mcp-session-id': `r1.${randomUUID()}`,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: expect.stringMatching(/initialize a new session/) },
    });
  });
});

describe('HTTP without sessions (stateless)', () => {
  it('serves an SDK client tools, each request by a protocol server of its own, offering no resources', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const definition = aroundSlowEcho(createSample(), async (run) => {
      const result = await run();
      await gate;
      return result;
    });
    const { handle, runtime } = await serve({ stateless: true }, definition);
    const { client, transport } = await connectHttp(handle);
    expect(transport.sessionId).toBeUndefined();
    // Tools only: no resources (so no subscriptions), prompts, completions or logging.
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo_text');
    expect(
      expectToolOk<{ text: string }>(
        await client.callTool({ name: 'echo_text', arguments: { text: 'no session' } }),
      ).text,
    ).toBe('no session');
    // Two calls at once: a protocol server each, while they run; none once they are answered.
    const calls = ['one', 'two'].map((text) =>
      client.callTool({ name: 'slow_echo', arguments: { text: `held ${text}`, ms: 0 } }),
    );
    await logged('slow_echo started: held one');
    await logged('slow_echo started: held two');
    expect(runtime.sessionCount).toBe(2);
    open();
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => expectToolOk<{ text: string }>(answer).text)).toEqual([
      'held one',
      'held two',
    ]);
    await expect.poll(() => runtime.sessionCount, { timeout: 10_000 }).toBe(0);
    expect(handle.sessions()).toBe(0);
    await expect(client.readResource({ uri: 'notes://a1' })).rejects.toMatchObject({ code: -32601 });
  });

  it('answers GET and DELETE 405: there is no stream to open and no session to end', async () => {
    const { handle } = await serve({ stateless: true });
    for (const method of ['GET', 'DELETE']) {
      const response = await raw(handle.port, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(JSON.parse(response.body).error.message).toMatch(/keeps no sessions \(--stateless\)/);
    }
  });
});

describe('HTTP replicas, in a server process', () => {
  it('takes --replica-id and --stateless from its flags', async () => {
    const replica = await startFixture(['--replica-id', 'east-1']);
    const init = await raw(replica.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    expect(init.headers['mcp-session-id']).toMatch(new RegExp(`^east-1\\.${UUID}$`));
    expect(await replica.stop()).toBe(0);

    const stateless = await startFixture(['--stateless']);
    const answer = await raw(stateless.port, {
      headers: MCP_HEADERS,
      body: JSON.stringify(initializeBody()),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(answer.body).toContain('"capabilities":{"tools":{}}');
    expect(await stateless.stop()).toBe(0);
  });
});
