import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { clientKey } from '../src/http-guards.js';
import type { Runtime } from '../src/index.js';
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
  sessionHeaders,
} from './http-harness.js';

afterEach(cleanUp);

/**
 * Resolves once the client's GET stream is open: a resources/updated sent outside any request travels on
 * it, so one arriving shows it open. Touches no session (runtime.changed is not a request).
 */
async function listening(client: Client, runtime: Runtime): Promise<void> {
  let heard = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
    heard++;
  });
  await client.subscribeResource({ uri: 'notes://index' });
  await expect
    .poll(
      () => {
        runtime.changed('notes://index');
        return heard;
      },
      { timeout: 10_000 },
    )
    .toBeGreaterThan(0);
}

const echo = async (client: Client, text: string) =>
  expectToolOk<{ text: string }>(await client.callTool({ name: 'echo_text', arguments: { text } })).text;

/** What a client whose session was closed is told at its next request: 404, and to initialize again. */
const TOLD_TO_INITIALIZE = {
  code: 404,
  message: expect.stringMatching(/Session not found.*initialize a new session/),
};

describe('HTTP sessions held by SDK clients', () => {
  it('makes room in a table full of clients on their GET streams: the idlest is closed and told to initialize', async () => {
    const { handle, runtime } = await serve({
      maxSessions: 3,
      maxSessionsPerClient: 3,
      newSessionGraceMs: 0,
    });
    const held: Client[] = [];
    for (let i = 0; i < 3; i++) {
      const { client } = await connectHttp(handle);
      await listening(client, runtime);
      held.push(client);
    }
    const [first, ...others] = held as [Client, ...Client[]];
    // The first made its last request before the others made theirs: it is the one idle longest.
    for (const client of others) await client.ping();
    const newcomer = await connectHttp(handle);
    expect(await echo(newcomer.client, 'let in')).toBe('let in');
    expect(handle.sessions()).toBe(3);
    await expect(echo(first, 'closed?')).rejects.toMatchObject(TOLD_TO_INITIALIZE);
    for (const client of others) expect(await echo(client, 'still here')).toBe('still here');
  });

  it('closes a session after the idle timeout even with its GET stream open', async () => {
    // The client opens its GET stream a moment after initialize: the timeout leaves it the time to.
    const { handle, runtime } = await serve({ idleTimeoutMs: 1_500 });
    const { client } = await connectHttp(handle);
    await listening(client, runtime);
    await expect.poll(() => handle.sessions(), { timeout: 10_000 }).toBe(0);
    expect(runtime.sessionCount).toBe(0);
    await expect(echo(client, 'closed?')).rejects.toMatchObject(TOLD_TO_INITIALIZE);
  });

  it('does not close a session idle past the timeout while it runs a call', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const definition = aroundSlowEcho(createSample(), async (run) => {
      const result = await run();
      await gate;
      return result;
    });
    const { handle } = await serve({ idleTimeoutMs: 300 }, definition);
    const busy = await connectHttp(handle);
    const call = busy.client.callTool({ name: 'slow_echo', arguments: { text: 'long call', ms: 0 } });
    await logged('slow_echo started: long call');
    // A session opened after the call began, with nothing running: once it is closed, the sweep has
    // passed the busy one's last request too.
    await sessionHeaders(handle.port);
    await expect.poll(() => handle.sessions(), { timeout: 10_000 }).toBe(1);
    open();
    expect(expectToolOk<{ text: string }>(await call).text).toBe('long call');
    expect(await echo(busy.client, 'still open')).toBe('still open');
  });

  it("closes a client's own idlest session past its cap, not another client's idle longer", async () => {
    const { handle, runtime } = await serve({
      maxSessions: 10,
      maxSessionsPerClient: 2,
      newSessionGraceMs: 0,
    });
    // Another client (another address), whose session is the one idle longest of all.
    const other = await connectHttp(handle, { from: '127.0.0.2' });
    await listening(other.client, runtime);
    const own: Client[] = [];
    for (let i = 0; i < 2; i++) {
      const { client } = await connectHttp(handle);
      await listening(client, runtime);
      own.push(client);
    }
    const third = await connectHttp(handle);
    expect(await echo(third.client, 'third')).toBe('third');
    expect(handle.sessions()).toBe(3);
    await expect(echo(own[0] as Client, 'closed?')).rejects.toMatchObject(TOLD_TO_INITIALIZE);
    expect(await echo(own[1] as Client, 'kept')).toBe('kept');
    expect(await echo(other.client, 'untouched')).toBe('untouched');
  });

  it('answers 429 to a client at its cap when none of its sessions may be closed, and serves another', async () => {
    // Sessions opened in the last 10 s (the default grace) are not closed to make room.
    const { handle } = await serve({ maxSessions: 10, maxSessionsPerClient: 1 });
    const first = await connectHttp(handle);
    await expect(connectHttp(handle)).rejects.toMatchObject({
      code: 429,
      message: expect.stringContaining('Too many sessions from 127.0.0.1 (1)'),
    });
    const other = await connectHttp(handle, { from: '127.0.0.2' });
    expect(await echo(other.client, 'other client')).toBe('other client');
    expect(await echo(first.client, 'first')).toBe('first');
    expect(handle.sessions()).toBe(2);
    // A raw initialize says the same, with a JSON-RPC error.
    const refused = await raw(handle.port, { headers: MCP_HEADERS, body: JSON.stringify(initializeBody()) });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/DELETE/),
    });
  });
});

describe('clientKey', () => {
  it('tells clients apart by address, an IPv6 one by its /64, a mapped IPv4 one as itself', () => {
    expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});
