import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLogger, defineServer, defineTool, Runtime, z } from '../src/index.js';
import { expectToolOk } from './helpers.js';

const listRoots = defineTool({
  name: 'list_client_roots',
  title: 'List client roots',
  description: 'Lists the root URIs the client offers.',
  input: {},
  output: { roots: z.array(z.string()).nullable() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, ctx) => ({ roots: (await ctx.roots()) ?? null }),
});

async function start(roots: string[] | undefined) {
  const runtime = new Runtime(
    defineServer({ name: 'roots', version: '0.0.0', deps: {}, tools: [listRoots] }),
    {
      logger: createLogger('roots', { level: 'silent' }),
    },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await runtime.connect(serverTransport);
  const client = new Client(
    { name: 'roots-test', version: '0.0.0' },
    roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  let asked = 0;
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked++;
      return { roots: roots.map((uri) => ({ uri, name: uri })) };
    });
  }
  await client.connect(clientTransport);
  const close = async () => {
    await client.close();
    await runtime.close({ drainMs: 100 });
  };
  return { client, close, asked: () => asked };
}

describe('ctx.roots', () => {
  it('asks the client for its roots at each call', async () => {
    const { client, close, asked } = await start(['file:///home/ana/project', 'file:///srv/reports']);
    const call = () => client.callTool({ name: 'list_client_roots', arguments: {} });
    expect(expectToolOk(await call())).toEqual({
      roots: ['file:///home/ana/project', 'file:///srv/reports'],
    });
    expectToolOk(await call());
    expect(asked()).toBe(2);
    await close();
  });

  it('is undefined when the client does not declare the roots capability', async () => {
    const { client, close } = await start(undefined);
    expect(expectToolOk(await client.callTool({ name: 'list_client_roots', arguments: {} }))).toEqual({
      roots: null,
    });
    await close();
  });
});
