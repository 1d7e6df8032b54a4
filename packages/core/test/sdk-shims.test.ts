import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SHIMMED_SDK_VERSION, transportHolds } from '../src/sdk-shims.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The installed SDK's version, from its package.json. */
function installedSdkVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve('@modelcontextprotocol/sdk/server/index.js')));
  for (;;) {
    const file = join(dir, 'package.json');
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
      if (pkg.name === '@modelcontextprotocol/sdk') return pkg.version;
    } catch {}
    if (dirname(dir) === dir) throw new Error('no package.json for @modelcontextprotocol/sdk');
    dir = dirname(dir);
  }
}

/**
 * A raw SDK server (no core, no shim) over Streamable HTTP, with one tool that runs until it is aborted or
 * released, and a fetch-based client.
 */
async function rawSdkServer() {
  const server = new Server({ name: 'raw', version: '0' }, { capabilities: { tools: {} } });
  let release = () => {};
  server.setRequestHandler(CallToolRequestSchema, (_request, extra) => {
    return new Promise((resolve) => {
      release = () => resolve({ content: [] });
      extra.signal.addEventListener('abort', () => resolve({ content: [] }));
    });
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'session' });
  await server.connect(transport);
  const http: NodeHttpServer = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const post = (body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'session',
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...(body as object) }),
    });
  const init = await post({
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    },
  });
  await init.text();
  await (await post({ method: 'notifications/initialized' })).text();
  return {
    server,
    transport,
    post,
    release: () => release(),
    close: async () => {
      await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** The body's text, or 'open' when it has not ended within `ms`. */
function textOrOpen(response: Response, ms: number): Promise<string> {
  return Promise.race([
    response.text(),
    new Promise<string>((resolve) => setTimeout(() => resolve('open'), ms)),
  ]);
}

describe(`SDK shims (written for @modelcontextprotocol/sdk ${SHIMMED_SDK_VERSION})`, () => {
  let raw: Awaited<ReturnType<typeof rawSdkServer>> | undefined;
  afterEach(async () => {
    raw?.release();
    await raw?.close();
    raw = undefined;
  });

  it('were written for the installed SDK: check each shim below against a new one, then update the version', () => {
    expect(installedSdkVersion()).toBe(SHIMMED_SDK_VERSION);
  });

  it('the SDK still keeps a cancelled request POST open and its id taken (answerForTheSdk answers it)', async () => {
    raw = await rawSdkServer();
    const call = raw.post({ id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    const response = await call;
    await (
      await raw.post({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'test' } })
    ).text();
    // The handler was aborted and the SDK sends nothing for it: the POST stays open and the id held.
    expect(await textOrOpen(response, 500)).toBe('open');
    expect(transportHolds(raw.transport, 2)).toBe(true);
  });

  it('the SDK still ends a running request stream at close with no answer (shuttingDown answers it)', async () => {
    raw = await rawSdkServer();
    const response = await raw.post({ id: 3, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    expect(transportHolds(raw.transport, 3)).toBe(true);
    const body = textOrOpen(response, 2_000).catch(() => 'cut');
    await raw.transport.close();
    expect(await body).not.toMatch(/"id":3/);
  });

  it('the SDK still keeps its handlers abort controllers in a private map (watchAborts patches it)', async () => {
    raw = await rawSdkServer();
    const controllers = (raw.server as unknown as { _requestHandlerAbortControllers?: unknown })
      ._requestHandlerAbortControllers;
    expect(controllers).toBeInstanceOf(Map);
  });
});

/** Private members of the SDK, and zod internals: only sdk-shims.ts may use them. */
const PRIVATE = [
  /\b_onrequest\b/,
  /\b_requestHandlers\b/,
  /\b_requestHandlerAbortControllers\b/,
  /\b_webStandardTransport\b/,
  /\b_requestToStreamMapping\b/,
  /\btransport\.send\s*=(?!=)/,
  /\b_zod\b/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

describe('private SDK members', () => {
  it('are used nowhere in packages/*/src or servers/*/src but in sdk-shims.ts', () => {
    const dirs = ['packages', 'servers'].flatMap((top) =>
      readdirSync(join(root, top))
        .map((name) => join(root, top, name, 'src'))
        .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()),
    );
    expect(dirs.length).toBeGreaterThan(3);
    const found: string[] = [];
    for (const file of dirs.flatMap(sourceFiles)) {
      if (file.endsWith(join('core', 'src', 'sdk-shims.ts'))) continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        for (const pattern of PRIVATE)
          if (pattern.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
