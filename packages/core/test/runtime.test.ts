import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  GetPromptResultSchema,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  type Progress,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  createLogger,
  defineTool,
  listedByType,
  RESOURCE_NOT_FOUND,
  type ResourceDefinition,
  ResourceText,
  Runtime,
  ShipyardError,
  z,
} from '../src/index.js';
import { MAX_SUBSCRIPTIONS } from '../src/runtime.js';
import { createSample, LEAKY_MESSAGE, SAMPLE_TOOL_NAMES } from './fixtures/sample.js';
import {
  connect,
  expectRpcError,
  expectToolError,
  expectToolOk,
  type Harness,
  RAW_INITIALIZE_PARAMS,
  trackSlowEcho,
  waitFor,
} from './helpers.js';

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof connect>[1] = {}): Promise<Harness> {
  harness = await connect(createSample(), options);
  return harness;
}

async function call(client: Client, name: string, args: unknown): Promise<CallToolResult> {
  // client.request, not callTool: lets a test send arguments a typed client would refuse to build.
  return (await client.request(
    { method: 'tools/call', params: { name, arguments: args as Record<string, unknown> } },
    CallToolResultSchema,
  )) as CallToolResult;
}

/** The server still answers a normal call after an error. */
async function expectStillServing(client: Client): Promise<void> {
  const ok = expectToolOk(await client.callTool({ name: 'echo_text', arguments: { text: 'alive' } }));
  expect(ok.text).toBe('alive');
}

/** Collect resources/updated notifications a client receives. */
function collectUpdates(client: Client): string[] {
  const uris: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    uris.push(notification.params.uri);
  });
  return uris;
}

/** Round-trips a request so notifications sent before it have been delivered. */
async function flush(client: Client): Promise<void> {
  await client.ping();
  await client.ping();
}

describe('initialize', () => {
  it('names the server shipyard-<name> with its version and instructions, and advertises capabilities', async () => {
    const { client } = await start();
    expect(client.getServerVersion()).toMatchObject({ name: 'shipyard-sample', version: '1.2.3' });
    expect(client.getInstructions()).toBe('Use echo_text to echo.');
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      completions: {},
      logging: {},
    });
  });

  it('gives instructions written as a function the tools this run offers', async () => {
    const definition = createSample();
    definition.instructions = (offered) => `Offered: ${[...offered].sort().join(', ')}`;
    harness = await connect(definition, { tools: ['echo_text', 'update_note'], readOnly: true });
    expect(harness.client.getInstructions()).toBe('Offered: echo_text');
  });

  it('marks the process as one that served a client, for the bin to save its code cache', async () => {
    const served = Symbol.for('shipyard.served');
    const global = globalThis as Record<symbol, unknown>;
    delete global[served];
    await start();
    expect(global[served]).toBe(true);
  });
});

describe('tools/list', () => {
  it('lists every tool with an input schema, an output schema and the hints the defaults do not give', async () => {
    const { client } = await start();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(SAMPLE_TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.title, tool.name).toEqual(expect.any(String));
      expect(tool.description, tool.name).toEqual(expect.any(String));
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema, tool.name).not.toHaveProperty('additionalProperties');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      // A write tool always says whether it is destructive; every tool whether its world is open.
      expect(tool.annotations?.openWorldHint, tool.name).toEqual(expect.any(Boolean));
      if (!tool.annotations?.readOnlyHint)
        expect(tool.annotations?.destructiveHint, tool.name).toEqual(expect.any(Boolean));
      expect(JSON.stringify(tool)).not.toContain('$schema');
    }
    const echo = tools.find((t) => t.name === 'echo_text');
    expect(echo?.inputSchema).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 20, description: 'Text to echo' },
        count: { type: 'integer', minimum: 1, maximum: 5, description: 'How many times' },
        mode: { type: 'string', enum: ['plain', 'loud'], description: 'plain or loud' },
      },
      required: ['text'],
    });
    expect(echo?.outputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' }, user: { type: ['string', 'null'] } },
    });
    expect(echo?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tools.find((t) => t.name === 'update_note')?.annotations).toEqual({
      destructiveHint: false,
      openWorldHint: false,
    });
  });
});

describe('tools/call', () => {
  it('returns structuredContent plus a compact JSON text copy equal to it', async () => {
    const { client } = await start();
    const result = (await client.callTool({
      name: 'echo_text',
      arguments: { text: 'ab', count: 2, mode: 'loud' },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ text: 'ABAB', user: null });
    expect(result.content).toEqual([{ type: 'text', text: '{"text":"ABAB","user":null}' }]);
    expect(result.isError ?? false).toBe(false);
  });

  it('rejects an unknown argument, naming it and the allowed ones', async () => {
    const { client } = await start();
    const error = expectToolError(
      await call(client, 'echo_text', { text: 'hi', colour: 'red' }),
      'invalid_input',
    );
    expect(error.message).toContain('`colour`');
    expect(error.message).toContain('allowed: text, count, mode');
    expect(error.hint).toBe('Fix the arguments named above and call the tool again');
    // An argument another tool takes: the hint names that tool.
    const elsewhere = expectToolError(
      await call(client, 'echo_text', { text: 'hi', prefix: 'a' }),
      'invalid_input',
    );
    expect(elsewhere.hint).toBe('`prefix` is an argument of list_tags: call that tool for it');
    // A value outside an enum is named back.
    const mode = expectToolError(
      await call(client, 'echo_text', { text: 'hi', mode: 'shout' }),
      'invalid_input',
    );
    expect(mode.message).toMatch(/`mode` must be one of .*, got "shout"/);
    await expectStillServing(client);
  });

  it('takes an enum value that differs only in case or blanks as the value it names', async () => {
    const { client } = await start();
    const result = (await call(client, 'echo_text', { text: 'hi', mode: ' LOUD ' })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ text: 'HI', user: null });
    // Eased enums do not hide the other problems of the call.
    const other = expectToolError(
      await call(client, 'echo_text', { text: 'hi', mode: 'Loud', count: 9 }),
      'invalid_input',
    );
    expect(other.message).toBe('Invalid arguments for echo_text: `count` must be at most 5');
  });

  it('names the argument an unknown one most likely means, instead of another tool', async () => {
    const { client } = await start();
    // The one required argument missing, with one unknown argument given: a rename.
    const renamed = expectToolError(await call(client, 'fail_with', { knd: 'plain' }), 'invalid_input');
    expect(renamed.message).toBe(
      'Invalid arguments for fail_with: `kind` is required (one of "not_found", "invalid_input", "conflict", "forbidden", "upstream", "plain", "string", "busy"); unknown argument `knd` (did you mean `kind`?) (allowed: kind)',
    );
    expect(renamed.hint).toBe('Fix the arguments named above and call the tool again');
    // Another tool's argument: the tools that read like this one, not the one that writes.
    const elsewhere = expectToolError(await call(client, 'list_tags', { text: 'x' }), 'invalid_input');
    expect(elsewhere.hint).toBe('`text` is an argument of echo_text, slow_echo: call that tool for it');
    // Paired with the one missing argument, though another tool takes it: no other tool is named, which
    // would send the model to do something else.
    const both = expectToolError(await call(client, 'update_note', { id: 'a1', mode: 'x' }), 'invalid_input');
    expect(both.message).toContain('unknown argument `mode` (did you mean `text`?)');
    expect(both.hint).toBe('Fix the arguments named above and call the tool again');
  });

  it('never points a tool that only reads at one that changes data', async () => {
    const { client } = await start();
    // `id` is an argument of update_note alone, which writes; list_tags only reads.
    const filter = expectToolError(await call(client, 'list_tags', { id: 'a1' }), 'invalid_input');
    expect(filter.message).toContain('unknown argument `id`');
    expect(filter.hint).toBe('Fix the arguments named above and call the tool again');
    // The other way round is harmless: a writer is pointed at the tools that read.
    const writer = expectToolError(
      await call(client, 'update_note', { id: 'a1', text: 'x', count: 2 }),
      'invalid_input',
    );
    expect(writer.hint).toBe('`count` is an argument of echo_text: call that tool for it');
  });

  it("says what the tool's definition says of an argument it lacks, instead of the tools that take it", async () => {
    const { client } = await start();
    // list_tags takes `prefix`, but update_note's definition says where it goes.
    const told = expectToolError(
      await call(client, 'update_note', { id: 'a1', text: 'x', prefix: 'p' }),
      'invalid_input',
    );
    const note = 'A note has no prefix: put it at the start of text (list_tags filters by one)';
    expect(told.message).toContain('unknown argument `prefix`');
    expect(told.hint).toBe(note);
    // With another tool's argument besides: both, the tools first.
    const both = expectToolError(
      await call(client, 'update_note', { id: 'a1', text: 'x', prefix: 'p', count: 2 }),
      'invalid_input',
    );
    expect(both.hint).toBe(`\`count\` is an argument of echo_text: call that tool for it. ${note}`);
    // With the one argument missing, the definition's word beats taking the name for a rename of it; in any
    // case, as an alias is looked up.
    for (const prefix of ['prefix', 'Prefix']) {
      const missing = expectToolError(
        await call(client, 'update_note', { id: 'a1', [prefix]: 'p' }),
        'invalid_input',
      );
      expect(missing.message).toContain('`text` is required');
      expect(missing.message).not.toContain('did you mean');
      expect(missing.hint).toBe(note);
    }
  });

  it('gives no hint from the definition that names a tool the session does not offer', async () => {
    const { client } = await start({ tools: ['update_note', 'echo_text'] });
    const error = expectToolError(
      await call(client, 'update_note', { id: 'a1', text: 'x', prefix: 'p' }),
      'invalid_input',
    );
    // Nor the tools that take `prefix`, which the definition overrides.
    expect(error.hint).toBe('Fix the arguments named above and call the tool again');
  });

  it('refuses at start-up a definition whose elsewhere names an argument the tool takes', () => {
    const sample = createSample();
    // A copy: the sample's tools are shared by every test.
    const definition = Object.assign({}, sample, {
      tools: sample.tools.map((tool) =>
        tool.name === 'update_note'
          ? Object.assign({}, tool, { elsewhere: { text: 'nowhere', prefix: 'at the start' } })
          : tool,
      ),
    });
    expect(() => new Runtime(definition)).toThrow(
      'Tool update_note: elsewhere names `text`, which it takes; elsewhere is for arguments the tool does not take',
    );
  });

  it('says a call cannot run because start-up failed, once warm-up has failed', async () => {
    const definition = createSample();
    definition.warmUp = () => {
      throw Object.assign(new Error('EACCES: permission denied, mkdir /srv/data'), { code: 'EACCES' });
    };
    harness = await connect(definition);
    await expect(harness.runtime.warmUp()).rejects.toThrow('EACCES');
    const error = expectToolError(await call(harness.client, 'fail_with', { kind: 'plain' }), 'internal');
    // The failure's code (not its message, which names paths) tells the user what to look for.
    expect(error.message).toMatch(
      /^tool fail_with cannot run: the server could not start \(EACCES\) and is stopping; its log says why \(ref [0-9a-f]{8}\)$/,
    );
    expect(error.hint).toBe('Restart the server once what its log names is fixed');
    expect(error.message).not.toContain('/srv/data');
    // Warm-up logged the failure with its stack; the call's failure is one line.
    const lines = harness.logs.filter((line) => line.includes('fail_with cannot run, as start-up failed'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/\n\s+at /);
    expect(harness.logs.filter((line) => /\n\s+at /.test(line))).toHaveLength(1);
  });

  it('describes a refused call without running the transforms of arguments it was not given', async () => {
    const definition = createSample();
    definition.tools = [
      ...definition.tools,
      defineTool({
        name: 'split_words',
        title: 'Split words',
        description: 'Split comma-separated words; returns how many.',
        // A preprocess that throws on undefined: probing the field by parsing undefined would throw.
        input: { words: z.preprocess((v) => (v as string).split(','), z.array(z.string())), n: z.number() },
        output: { count: z.number() },
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        handler: (input) => ({ count: input.words.length }),
      }),
    ];
    harness = await connect(definition);
    const error = expectToolError(
      await call(harness.client, 'split_words', { words: 'a,b', n: 'x' }),
      'invalid_input',
    );
    expect(error.message).toBe('Invalid arguments for split_words: `n` must be a number, got string "x"');
  });

  it('tells a model that passed null for an optional argument to leave it out', async () => {
    const { client } = await start();
    const error = expectToolError(
      await call(client, 'echo_text', { text: 'hi', count: null }),
      'invalid_input',
    );
    expect(error.message).toBe(
      'Invalid arguments for echo_text: `count` must be a number, got null: leave the argument out rather than pass null',
    );
    // A required argument given null is not told to leave it out.
    const required = expectToolError(await call(client, 'echo_text', { text: null }), 'invalid_input');
    expect(required.message).toBe('Invalid arguments for echo_text: `text` must be a string, got null');
  });

  it('tells a null for an optional argument whose description offers "none" to pass "none", or leave it out', async () => {
    const definition = createSample();
    definition.tools = [
      ...definition.tools,
      defineTool({
        name: 'find_people',
        title: 'Find people',
        description: 'Find people by owner; returns how many.',
        input: {
          owner: z.string().describe('Name or "none"').optional(),
          team: z.string().optional().describe('Team name'),
        },
        output: { count: z.number() },
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        handler: () => ({ count: 0 }),
      }),
    ];
    harness = await connect(definition);
    const error = expectToolError(
      await call(harness.client, 'find_people', { owner: null, team: null }),
      'invalid_input',
    );
    expect(error.message).toBe(
      'Invalid arguments for find_people: `owner` must be a string, got null: pass "none" for none, or leave the ' +
        'argument out; `team` must be a string, got null: leave the argument out rather than pass null',
    );
  });

  it('rejects a wrong type, naming the field and the expected type in plain words', async () => {
    const { client } = await start();
    const error = expectToolError(await call(client, 'echo_text', { text: 42 }), 'invalid_input');
    expect(error.message).toContain('`text` must be a string, got number 42');
    expect(error.message).not.toMatch(/invalid_type|expected":/);
    const integer = expectToolError(
      await call(client, 'echo_text', { text: 'a', count: 1.5 }),
      'invalid_input',
    );
    expect(integer.message).toContain('`count` must be an integer');
    await expectStillServing(client);
  });

  it('rejects a missing required field', async () => {
    const { client } = await start();
    const error = expectToolError(await call(client, 'echo_text', {}), 'invalid_input');
    expect(error.message).toContain('`text` is required');
    const absent = expectToolError(await call(client, 'echo_text', undefined), 'invalid_input');
    expect(absent.message).toContain('`text` is required');
    await expectStillServing(client);
  });

  it('rejects a string that is too long or too short', async () => {
    const { client } = await start();
    const long = expectToolError(await call(client, 'echo_text', { text: 'x'.repeat(21) }), 'invalid_input');
    expect(long.message).toContain('`text` must have at most 20 characters');
    const empty = expectToolError(await call(client, 'echo_text', { text: '' }), 'invalid_input');
    expect(empty.message).toContain('`text` must not be empty or blank');
    const big = expectToolError(await call(client, 'echo_text', { text: 'a', count: 9 }), 'invalid_input');
    expect(big.message).toContain('`count` must be at most 5');
    await expectStillServing(client);
  });

  it('rejects a value outside an enum, listing the allowed values', async () => {
    const { client } = await start();
    const error = expectToolError(
      await call(client, 'echo_text', { text: 'a', mode: 'quiet' }),
      'invalid_input',
    );
    expect(error.message).toContain('`mode` must be one of "plain", "loud"');
    await expectStillServing(client);
  });

  it('rejects arguments that are not an object and keeps serving', async () => {
    const { client } = await start();
    for (const args of ['text', 42, ['a'], null]) {
      let result: CallToolResult | undefined;
      let rpcCode: number | undefined;
      try {
        result = await call(client, 'echo_text', args);
      } catch (error) {
        rpcCode = (error as { code?: number }).code;
      }
      if (result) {
        const error = expectToolError(result, 'invalid_input');
        expect(error.message).toMatch(/arguments/);
        if (args !== null) expect(error.message).toContain('`arguments` must be an object');
      } else {
        // A malformed request is the caller's fault: invalid params, never an internal error.
        expect(rpcCode, JSON.stringify(args)).toBe(INVALID_PARAMS);
      }
    }
    await expectStillServing(client);
  });

  it.each([
    ['not_found', 'Note SHIP-9 does not exist'],
    ['invalid_input', 'Cannot move a closed note'],
    ['conflict', 'The note changed since version 3'],
    ['forbidden', 'You may not delete notes'],
    ['upstream', 'The provider timed out'],
  ] as const)(
    'turns a thrown %s error into an isError result with its code, message and hint',
    async (kind, message) => {
      const { client, logs } = await start();
      const error = expectToolError(await client.callTool({ name: 'fail_with', arguments: { kind } }), kind);
      expect(error).toEqual({ code: kind, message, hint: `hint for ${kind}` });
      expect(logs.join('')).not.toContain(' error ');
      await expectStillServing(client);
    },
  );

  it('turns a plain Error into a generic internal error that leaks nothing, and logs the real one', async () => {
    const { client, logs } = await start();
    const result = await client.callTool({ name: 'fail_with', arguments: { kind: 'plain' } });
    const error = expectToolError(result, 'internal');
    const text = JSON.stringify(result);
    for (const secret of [
      'SQLITE',
      'SELECT',
      'hunter2',
      '/srv/shipyard',
      'db.sqlite',
      'at ',
      'leakyError',
      '.ts:',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(error.message).toMatch(/internal error/i);
    const ref = /ref ([0-9a-f]{8})/.exec(error.message)?.[1];
    expect(ref).toBeDefined();
    const logged = logs.join('');
    expect(logged).toContain(LEAKY_MESSAGE);
    expect(logged).toContain(`ref ${ref}`);
    expect(logged).toMatch(/\n\s+at .*leakyError/);
    expect(logged).toMatch(/ error \[sample\]/);
    await expectStillServing(client);
  });

  it('turns a database lock that outlasted busy_timeout into a conflict to retry, logged as a warning', async () => {
    const { client, logs } = await start();
    const error = expectToolError(
      await client.callTool({ name: 'fail_with', arguments: { kind: 'busy' } }),
      'conflict',
    );
    expect(error.message).toMatch(/database is busy/);
    expect(error.hint).toMatch(/Nothing was changed; retry/);
    expect(logs.join('')).toMatch(/ warn .*tool fail_with: The database is busy/);
    expect(logs.join('')).not.toContain(' error ');
    await expectStillServing(client);
  });

  it('turns a thrown non-Error value into an internal error too', async () => {
    const { client, logs } = await start();
    const result = await client.callTool({ name: 'fail_with', arguments: { kind: 'string' } });
    expectToolError(result, 'internal');
    expect(JSON.stringify(result)).not.toContain('/etc/passwd');
    expect(logs.join('')).toContain('/etc/passwd');
    await expectStillServing(client);
  });

  it('turns output that breaks the output schema into an internal error', async () => {
    const { client, logs } = await start();
    const result = await client.callTool({ name: 'bad_output', arguments: {} });
    expectToolError(result, 'internal');
    expect(JSON.stringify(result)).not.toContain('/srv/shipyard');
    expect(logs.join('')).toMatch(/output of bad_output does not match its schema/);
    await expectStillServing(client);
  });

  it('answers an unknown tool with JSON-RPC -32602 listing the available tools', async () => {
    const { client } = await start();
    const error = await expectRpcError(
      client.callTool({ name: 'no_such_tool', arguments: {} }),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('Unknown tool: no_such_tool');
    expect(error.message).toContain(`Available tools: ${SAMPLE_TOOL_NAMES.join(', ')}`);
    await expectStillServing(client);
  });

  it('answers a tools/call without a name with JSON-RPC -32602, not an internal error', async () => {
    const { client } = await start();
    const error = await expectRpcError(
      client.request({ method: 'tools/call', params: { arguments: {} } } as never, z.object({}).loose()),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('needs params.name');
    await expectStillServing(client);
  });

  it('answers bad params of any method with JSON-RPC -32602 naming the field, not an internal error', async () => {
    const { client } = await start();
    const ask = (method: string, params: unknown) =>
      expectRpcError(client.request({ method, params } as never, z.object({}).loose()), INVALID_PARAMS);
    expect((await ask('resources/read', {})).message).toContain(
      'Invalid params for resources/read: `uri` is required (string)',
    );
    expect((await ask('resources/subscribe', { uri: 7 })).message).toContain('`uri` must be a string, got');
    expect((await ask('prompts/get', {})).message).toContain('`name` is required');
    expect((await ask('tools/list', { cursor: 5 })).message).toContain('`cursor` must be a string');
    for (const method of ['resources/read', 'prompts/get', 'completion/complete'])
      expect((await ask(method, undefined)).message).not.toMatch(/"code"|invalid_type/);
    // tools/call's quick check passes only an object of params; the rest is checked as any other method's.
    expect((await ask('tools/call', undefined)).message).toMatch(/Invalid params for tools\/call: `params`/);
    await expectStillServing(client);
  });

  it('passes the user option to ctx.user', async () => {
    const { client } = await start({ user: 'ada' });
    const ok = expectToolOk(await client.callTool({ name: 'echo_text', arguments: { text: 'me' } }));
    expect(ok).toEqual({ text: 'me', user: 'ada' });
  });

  it('sends progress notifications to a client that asked for them', async () => {
    const { client } = await start();
    const seen: Progress[] = [];
    const result = await client.callTool({ name: 'report_progress', arguments: {} }, undefined, {
      onprogress: (progress) => {
        seen.push(progress);
      },
    });
    expect(expectToolOk(result)).toEqual({ done: true });
    expect(seen[0]).toEqual({ progress: 1, total: 2, message: 'half' });
    expect(seen).toContainEqual({ progress: 2, total: 2 });
  });

  it('ignores ctx.progress when the client sent no progress token', async () => {
    const { client } = await start();
    expect(expectToolOk(await client.callTool({ name: 'report_progress', arguments: {} }))).toEqual({
      done: true,
    });
  });
});

describe('read-only mode', () => {
  it('lists only readOnlyHint tools and refuses a mutating tool with forbidden', async () => {
    const { client, runtime } = await start({ readOnly: true });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).not.toContain('update_note');
    expect(names).toEqual(SAMPLE_TOOL_NAMES.filter((n) => n !== 'update_note'));
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(runtime.toolNames).toEqual(names);
    const error = expectToolError(
      await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'x' } }),
      'forbidden',
    );
    expect(error.message).toContain('read-only');
    expect(error.hint).toContain('echo_text');
    await expectStillServing(client);
    // Nothing changed.
    const read = await client.readResource({ uri: 'notes://a1' });
    expect(read.contents[0]).toMatchObject({ text: 'first note' });
  });
});

describe('allow-list', () => {
  it('lists and serves only the allowed tools', async () => {
    const { client } = await start({ tools: ['echo_text', 'slow_echo'] });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo_text', 'slow_echo']);
    const error = await expectRpcError(
      client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'x' } }),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('Available tools: echo_text, slow_echo');
    await expectStillServing(client);
  });

  it('offers only the prompts whose tools are all offered', async () => {
    const without = await start({ tools: ['update_note', 'slow_echo'] });
    expect((await without.client.listPrompts()).prompts).toEqual([]);
    const error = await expectRpcError(without.client.getPrompt({ name: 'summarise' }), INVALID_PARAMS);
    // Named as hidden, and why, not as unknown; completions say the same.
    expect(error.message).toMatch(
      /Prompt summarise is not offered: it calls echo_text, which --tools \(SHIPYARD_TOOLS\) leaves out\. Available prompts: none$/,
    );
    const completing = without.client.complete({
      ref: { type: 'ref/prompt', name: 'summarise' },
      argument: { name: 'id', value: '' },
    });
    expect((await expectRpcError(completing, INVALID_PARAMS)).message).toContain(
      'Prompt summarise is not offered',
    );
    expect(
      (await expectRpcError(without.client.getPrompt({ name: 'nope' }), INVALID_PARAMS)).message,
    ).toMatch(/Unknown prompt: nope\. Available prompts: none$/);
    await without.close();
    // A prompt that calls a tool that writes, under --read-only.
    const sample = createSample();
    const writes = sample.prompts?.map((prompt) => ({
      ...prompt,
      uses: ['echo_text', 'update_note', 'slow_echo'],
    }));
    const readOnly = await connect(
      { ...sample, prompts: writes },
      { readOnly: true, tools: ['echo_text', 'update_note'] },
    );
    const hidden = await expectRpcError(readOnly.client.getPrompt({ name: 'summarise' }), INVALID_PARAMS);
    expect(hidden.message).toContain(
      'Prompt summarise is not offered: it calls update_note, which --read-only hides, and slow_echo, which --tools (SHIPYARD_TOOLS) leaves out.',
    );
    await readOnly.close();
    // A tool that writes, left out by --tools under --read-only: both would have to change.
    const neither = await connect({ ...sample, prompts: writes }, { readOnly: true, tools: ['echo_text'] });
    const both = await expectRpcError(neither.client.getPrompt({ name: 'summarise' }), INVALID_PARAMS);
    expect(both.message).toContain(
      'it calls slow_echo, which --tools (SHIPYARD_TOOLS) leaves out, and update_note, which --tools (SHIPYARD_TOOLS) leaves out and --read-only would hide.',
    );
    await neither.close();
    const all = await start({ tools: ['echo_text'] });
    expect((await all.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['review-note', 'summarise']);
  });

  it('warns when --tools and --read-only leave no tool, and still starts', () => {
    const lines: string[] = [];
    const logger = createLogger('sample', { write: (line) => lines.push(line) });
    const runtime = new Runtime(createSample(), { readOnly: true, tools: ['update_note'], logger });
    expect(runtime.toolNames).toEqual([]);
    expect(lines.join('\n')).toMatch(/no tool is offered.*update_note/);
  });

  it('says so in the hint when --read-only refuses a tool and no tool is left', async () => {
    const { client } = await start({ readOnly: true, tools: ['update_note'] });
    const error = expectToolError(
      await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'x' } }),
      'forbidden',
    );
    expect(error.hint).toBe(
      'No tool is offered: --tools names none that only reads; start the server without --read-only to change data',
    );
    const unknown = await expectRpcError(client.callTool({ name: 'nope', arguments: {} }), INVALID_PARAMS);
    expect(unknown.message).toMatch(/Unknown tool: nope\. Available tools: none$/);
  });

  it('throws ConfigError naming the unknown tools and listing the real ones', () => {
    let caught: unknown;
    try {
      new Runtime(createSample(), { tools: ['echo_text', 'nope', 'nada'] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    expect(message).toContain('nope, nada');
    expect(message).toContain(SAMPLE_TOOL_NAMES.join(', '));
  });
});

describe('resources', () => {
  it('lists static resources and the entries of templates with list()', async () => {
    const { client } = await start();
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      {
        uri: 'notes://index',
        name: 'note-index',
        title: 'Note index',
        description: 'All note ids',
        mimeType: 'application/json',
      },
      { uri: 'notes://a1', name: 'note a1', mimeType: 'text/plain' },
      { uri: 'notes://a2', name: 'note a2', mimeType: 'text/plain' },
    ]);
  });

  it('lists resource templates', async () => {
    const { client } = await start();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        uriTemplate: 'notes://{id}',
        name: 'note',
        title: 'Note',
        description: 'One note by id',
        mimeType: 'text/plain',
      },
      { uriTemplate: 'tags://{tag}', name: 'tag', description: 'One tag', mimeType: 'application/json' },
      { uriTemplate: 'broken://{name}', name: 'broken', description: 'Always fails', mimeType: 'text/plain' },
    ]);
  });

  it('reads a static resource as compact JSON and a template with its params', async () => {
    const { client } = await start();
    const index = await client.readResource({ uri: 'notes://index' });
    expect(index.contents).toEqual([
      { uri: 'notes://index', mimeType: 'application/json', text: '{"ids":["a1","a2"]}' },
    ]);
    const one = await client.readResource({ uri: 'notes://a2' });
    expect(one.contents).toEqual([{ uri: 'notes://a2', mimeType: 'text/plain', text: 'second note' }]);
    const tag = await client.readResource({ uri: 'tags://tag-007' });
    expect(tag.contents[0]).toMatchObject({ text: '{"tag":"tag-007"}' });
  });

  it('answers a read that returns ResourceText with its own MIME type', async () => {
    const sample = createSample();
    const code: ResourceDefinition = {
      uri: 'code://{name}',
      name: 'code',
      description: 'Code in its language',
      mimeType: 'text/plain',
      read: ({ name }) => new ResourceText(`let ${name} = 1`, 'text/x-typescript'),
    };
    harness = await connect({ ...sample, resources: [...(sample.resources ?? []), code] });
    const read = await harness.client.readResource({ uri: 'code://x' });
    expect(read.contents).toEqual([{ uri: 'code://x', mimeType: 'text/x-typescript', text: 'let x = 1' }]);
  });

  it('answers -32002 for a URI no resource matches', async () => {
    const { client } = await start();
    const error = await expectRpcError(client.readResource({ uri: 'nothing://here' }), RESOURCE_NOT_FOUND);
    expect(error.message).toContain('nothing://here');
    await expectStillServing(client);
  });

  it("lets the resource's read judge a value with `/` or `,`, which no template variable matches as such", async () => {
    const { client, logs } = await start();
    for (const id of ['a1,a2', 'a/1']) {
      const error = await expectRpcError(client.readResource({ uri: `notes://${id}` }), RESOURCE_NOT_FOUND);
      expect(error.message).toContain(`No note ${id}`);
    }
    const tag = await client.readResource({ uri: 'tags://x/y,z' });
    expect(tag.contents[0]).toMatchObject({ uri: 'tags://x/y,z', text: '{"tag":"x/y,z"}' });
    // A URI that fits a template as it stands still goes to that template; one that fits none is not found.
    expect((await client.readResource({ uri: 'notes://index' })).contents[0]?.mimeType).toBe(
      'application/json',
    );
    await expectRpcError(client.readResource({ uri: 'notes:/a/1' }), RESOURCE_NOT_FOUND);
    // Only a read: such a value never changes, so there is nothing to subscribe to. Where the read refuses
    // it, the refusal says what was meant; where it reads, or fails inside, the plain answer.
    const refused = await expectRpcError(
      client.subscribeResource({ uri: 'notes://a/1' }),
      RESOURCE_NOT_FOUND,
    );
    expect(refused.message).toContain('No note a/1');
    expect(refused.message).toContain('Read notes://index');
    for (const uri of ['tags://x,y', 'broken://x/y']) {
      const plain = await expectRpcError(client.subscribeResource({ uri }), RESOURCE_NOT_FOUND);
      expect(plain.message).toBe(`MCP error -32002: Resource not found: ${uri}`);
    }
    // The fault in broken's read is logged, as a read's is, and not told.
    expect(logs.join('')).toContain(LEAKY_MESSAGE);
    await expectStillServing(client);
  });

  it('answers -32002 when read throws NotFound', async () => {
    const { client } = await start();
    const error = await expectRpcError(client.readResource({ uri: 'notes://zz' }), RESOURCE_NOT_FOUND);
    expect(error.message).toContain('No note zz');
    // The hint travels in the message: a model reading the resource learns how to recover.
    expect(error.message).toContain('Read notes://index');
    await expectStillServing(client);
  });

  it('names the resource a URI with a query or fragment would be without it', async () => {
    const { client } = await start();
    for (const uri of ['notes://a1?x=1', 'notes://index#top']) {
      const error = await expectRpcError(client.readResource({ uri }), RESOURCE_NOT_FOUND);
      expect(error.message).toContain(`take no query or fragment: read ${uri.split(/[?#]/)[0]}`);
      // A subscription is answered alike, not as a value its template would take.
      const subscribe = await expectRpcError(client.subscribeResource({ uri }), RESOURCE_NOT_FOUND);
      expect(subscribe.message).toContain(`take no query or fragment: subscribe to ${uri.split(/[?#]/)[0]}`);
    }
    // Nothing without it either: the usual answer.
    const none = await expectRpcError(client.readResource({ uri: 'nowhere://x?y' }), RESOURCE_NOT_FOUND);
    expect(none.message).not.toContain('query');
    await expectStillServing(client);
  });

  it('answers -32603 without internals when read throws a plain Error, and logs it', async () => {
    const { client, logs } = await start();
    const error = await expectRpcError(client.readResource({ uri: 'broken://x' }), INTERNAL_ERROR);
    for (const secret of ['SQLITE', 'SELECT', 'hunter2', '/srv/shipyard'])
      expect(error.message).not.toContain(secret);
    expect(JSON.stringify((error as { data?: unknown }).data ?? null)).not.toContain('hunter2');
    expect(logs.join('')).toContain(LEAKY_MESSAGE);
    await expectStillServing(client);
  });
});

describe('subscriptions', () => {
  it('notifies a subscriber when a tool calls ctx.changed, and stops after unsubscribe', async () => {
    const { client } = await start();
    const updates = collectUpdates(client);
    await client.subscribeResource({ uri: 'notes://a1' });
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'new' } }));
    await flush(client);
    expect(updates).toEqual(['notes://a1']);

    // Not subscribed to a2 (nor to the index): no notification.
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a2', text: 'new' } }));
    await flush(client);
    expect(updates).toEqual(['notes://a1']);

    await client.unsubscribeResource({ uri: 'notes://a1' });
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'newer' } }));
    await flush(client);
    expect(updates).toEqual(['notes://a1']);
  });

  it('notifies a subscription under any spelling of the URI, with that spelling; any spelling ends it', async () => {
    const { client } = await start();
    const updates = collectUpdates(client);
    await client.subscribeResource({ uri: 'notes://A1' });
    await client.subscribeResource({ uri: 'notes://a1' });
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'new' } }));
    await flush(client);
    expect(updates.sort()).toEqual(['notes://A1', 'notes://a1']);
    await client.unsubscribeResource({ uri: 'notes://A1' });
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'newer' } }));
    await flush(client);
    expect(updates.sort()).toEqual(['notes://A1', 'notes://a1']);
  });

  it('handles a subscription before the requests sent right after it', async () => {
    const { client } = await start();
    const updates = collectUpdates(client);
    // Sent together: the unsubscribe ends the subscription, and the change after the subscribe is heard.
    await Promise.all([
      client.subscribeResource({ uri: 'notes://a1' }),
      client.unsubscribeResource({ uri: 'notes://a1' }),
      client.subscribeResource({ uri: 'notes://a2' }),
      client.callTool({ name: 'update_note', arguments: { id: 'a2', text: 'heard' } }),
    ]);
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'unheard' } }));
    await flush(client);
    expect(updates).toEqual(['notes://a2']);
  });

  it('holds at most MAX_SUBSCRIPTIONS subscriptions a session, and takes more once some end', async () => {
    const { client, connectClient } = await start();
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await client.subscribeResource({ uri: `notes://n${i}` });
    // Subscribing again under a spelling already held costs nothing.
    await client.subscribeResource({ uri: 'notes://n0' });
    const error = await expectRpcError(client.subscribeResource({ uri: 'notes://extra' }), INVALID_PARAMS);
    expect(error.message).toContain(`holds ${MAX_SUBSCRIPTIONS} subscriptions`);
    expect(error.message).toContain('unsubscribe');
    // Another session has its own allowance.
    await (await connectClient()).subscribeResource({ uri: 'notes://extra' });
    await client.unsubscribeResource({ uri: 'notes://n0' });
    await client.subscribeResource({ uri: 'notes://extra' });
  });

  it('refuses a URI over 2,048 characters cleanly, and names unknown ones back cut and escaped', async () => {
    const { client, logs } = await start();
    const long = `notes://${'a'.repeat(3_000)}`;
    for (const call of [client.readResource({ uri: long }), client.subscribeResource({ uri: long })]) {
      const error = await expectRpcError(call, INVALID_PARAMS);
      expect(error.message).toContain('at most 2048 characters; this one has 3008');
    }
    const unknown = await expectRpcError(
      client.readResource({ uri: `nothing://${'x'.repeat(2_000)}` }),
      RESOURCE_NOT_FOUND,
    );
    expect(unknown.message.length).toBeLessThan(300);
    const prompt = await expectRpcError(
      client.getPrompt({ name: `\u001b[31mred\nline${'p'.repeat(100_000)}` }),
      INVALID_PARAMS,
    );
    expect(prompt.message).toMatch(
      /^MCP error -32602: Unknown prompt: \\u001b\[31mred\\nlinep+…\. Available prompts/,
    );
    expect(prompt.message.length).toBeLessThan(400);
    const tool = await expectRpcError(
      client.callTool({ name: `nope\n${'t'.repeat(100_000)}` }),
      INVALID_PARAMS,
    );
    expect(tool.message).not.toContain('\n');
    expect(tool.message.length).toBeLessThan(600);
    // A bidi override would make the rest of the message read backwards; an emoji at the cut stays whole.
    const bidi = await expectRpcError(
      client.getPrompt({ name: `evil\u202egnp.exe\u{e0001}${'x'.repeat(185)}\u{1f680}tail` }),
      INVALID_PARAMS,
    );
    expect(bidi.message).toContain('Unknown prompt: evil\\u202egnp.exe\\u{e0001}xxx');
    // The emoji would straddle the cut at 200: it goes whole, no half of it is left behind.
    expect(bidi.message).toMatch(/x…\. Available prompts/);
    expect(bidi.message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(bidi.message).not.toMatch(/[\u202e\u{e0001}]/u);
    expect(logs.join('')).not.toContain(' error ');
  });

  it('answers an initialize with bad params -32602 naming the fields, and the session still initializes', async () => {
    const runtime = new Runtime(createSample(), { logger: createLogger('notes', { level: 'silent' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const answers: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => answers.push(message);
    await runtime.connect(serverSide);
    await clientSide.start();
    const initialize = (id: number, params: Record<string, unknown>) =>
      clientSide.send({ jsonrpc: '2.0', id, method: 'initialize', params });
    await initialize(1, { protocolVersion: 5, clientInfo: { name: 'raw', version: '0' } });
    await initialize(2, RAW_INITIALIZE_PARAMS);
    await waitFor(() => answers.length === 2, 'two answers');
    const [bad, good] = answers as {
      id: number;
      error?: { code: number; message: string };
      result?: unknown;
    }[];
    expect(bad?.error?.code).toBe(INVALID_PARAMS);
    expect(bad?.error?.message).toMatch(/^Invalid params for initialize: .*protocolVersion/);
    expect(bad?.error?.message).toContain('capabilities');
    expect(bad?.error?.message).not.toContain('"code"');
    expect(good?.result).toMatchObject({ protocolVersion: LATEST_PROTOCOL_VERSION });
    await clientSide.close();
    await runtime.close();
  });

  it('watches for outside changes exactly while something is subscribed', async () => {
    const definition = createSample();
    harness = await connect(definition);
    const { client } = harness;
    const updates = collectUpdates(client);
    expect(definition.deps.outside).toBeUndefined();
    await client.subscribeResource({ uri: 'notes://a1' });
    definition.deps.outside?.('notes://a1', 'notes://a2');
    await flush(client);
    expect(updates).toEqual(['notes://a1']);
    await client.unsubscribeResource({ uri: 'notes://a1' });
    expect(definition.deps.outside).toBeUndefined();
    await client.subscribeResource({ uri: 'notes://a2' });
    expect(definition.deps.outside).toEqual(expect.any(Function));
    await harness.runtime.close();
    expect(definition.deps.outside).toBeUndefined();
  });

  it('reports every URI any session subscribed to when the watch says changes may have been missed', async () => {
    const definition = createSample();
    harness = await connect(definition);
    const { client, connectClient } = harness;
    const other = await connectClient();
    const mine = collectUpdates(client);
    const theirs = collectUpdates(other);
    await client.subscribeResource({ uri: 'notes://a1' });
    await other.subscribeResource({ uri: 'notes://a2' });
    await other.subscribeResource({ uri: 'notes://index' });
    definition.deps.outsideAll?.();
    await flush(client);
    await flush(other);
    expect(mine).toEqual(['notes://a1']);
    expect(theirs.sort()).toEqual(['notes://a2', 'notes://index']);
  });

  it("notifies another session subscribed to the resource the first session's tool changed", async () => {
    const { client, connectClient, runtime } = await start();
    const other = await connectClient();
    expect(runtime.sessionCount).toBe(2);
    const mine = collectUpdates(client);
    const theirs = collectUpdates(other);
    await other.subscribeResource({ uri: 'notes://a2' });
    await other.subscribeResource({ uri: 'notes://index' });
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a2', text: 'shared' } }));
    await flush(other);
    await flush(client);
    expect(theirs.sort()).toEqual(['notes://a2', 'notes://index']);
    expect(mine).toEqual([]);
    const read = await other.readResource({ uri: 'notes://a2' });
    expect(read.contents[0]).toMatchObject({ text: 'shared' });
  });

  it('answers -32002 to a subscription for a URI that matches no resource', async () => {
    const { client } = await start();
    await expectRpcError(client.subscribeResource({ uri: 'nothing://here' }), RESOURCE_NOT_FOUND);
    await expectStillServing(client);
  });

  it('forgets a closed session', async () => {
    const { connectClient, runtime } = await start();
    const other = await connectClient();
    expect(runtime.sessionCount).toBe(2);
    await other.close();
    await waitFor(() => runtime.sessionCount === 1, 'the session to close');
    expect(runtime.sessionCount).toBe(1);
  });
});

describe('completion', () => {
  it('completes a resource template variable, filtered by prefix', async () => {
    const { client } = await start();
    const answer = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{id}' },
      argument: { name: 'id', value: 'a' },
    });
    expect(answer.completion).toEqual({ values: ['a1', 'a2'], total: 2, hasMore: false });
    const narrow = await client.complete({
      ref: { type: 'ref/resource', uri: 'tags://{tag}' },
      argument: { name: 'tag', value: 'tag-14' },
    });
    expect(narrow.completion.values).toEqual(Array.from({ length: 10 }, (_, i) => `tag-14${i}`));
    expect(narrow.completion.hasMore).toBe(false);
  });

  it('caps the values at 100 with hasMore and the full total', async () => {
    const { client } = await start();
    const answer = await client.complete({
      ref: { type: 'ref/resource', uri: 'tags://{tag}' },
      argument: { name: 'tag', value: 'tag-' },
    });
    expect(answer.completion.values).toHaveLength(100);
    expect(answer.completion.values[0]).toBe('tag-000');
    expect(answer.completion.hasMore).toBe(true);
    expect(answer.completion.total).toBe(150);
  });

  it('completes prompt arguments, filtered and capped the same way', async () => {
    const { client } = await start();
    const ids = await client.complete({
      ref: { type: 'ref/prompt', name: 'review-note' },
      argument: { name: 'id', value: 'a2' },
    });
    expect(ids.completion).toEqual({ values: ['a2'], total: 1, hasMore: false });
    const tags = await client.complete({
      ref: { type: 'ref/prompt', name: 'review-note' },
      argument: { name: 'tag', value: '' },
    });
    expect(tags.completion.values).toHaveLength(100);
    expect(tags.completion).toMatchObject({ total: 151, hasMore: true });
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'review-note' },
      argument: { name: 'tag', value: 'zzz' },
    });
    expect(none.completion).toEqual({ values: [], total: 0, hasMore: false });
  });

  it('answers an argument without completion with no values, and an unknown prompt or template with -32602', async () => {
    const { client } = await start();
    const answer = await client.complete({
      ref: { type: 'ref/resource', uri: 'broken://{name}' },
      argument: { name: 'name', value: 'x' },
    });
    expect(answer.completion.values).toEqual([]);
    await expectRpcError(
      client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'id', value: '' } }),
      INVALID_PARAMS,
    );
    const template = await expectRpcError(
      client.complete({
        ref: { type: 'ref/resource', uri: 'notes://{zzz}' },
        argument: { name: 'zzz', value: '' },
      }),
      INVALID_PARAMS,
    );
    expect(template.message).toContain(
      'Unknown resource template: notes://{zzz}. Templates: notes://{id}, tags://{tag}, broken://{name}',
    );
  });
});

describe('prompts', () => {
  it('lists prompts with their arguments and which are required', async () => {
    const { client } = await start();
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: 'review-note',
        title: 'Review a note',
        description: 'Review one note and tag it',
        arguments: [
          { name: 'id', description: 'Note id', required: true },
          { name: 'tag', description: 'Tag to apply', required: false },
        ],
      },
      { name: 'summarise', description: 'Summarise all notes', arguments: [] },
    ]);
  });

  it('answers a prompt whose embedded resource fails as an error of the prompt', async () => {
    const definition = createSample();
    const review = definition.prompts?.find((prompt) => prompt.name === 'review-note');
    if (!review) throw new Error('the sample has no review-note prompt');
    definition.prompts = [
      // The note is gone between the check and the read: NotFound, with the resource's hint.
      { ...review, name: 'gone-note', check: undefined },
      { ...review, name: 'bad-uri', messages: () => [{ role: 'user', resource: 'nowhere://x' }] },
    ];
    harness = await connect(definition);
    const gone = await expectRpcError(
      harness.client.getPrompt({ name: 'gone-note', arguments: { id: 'zz' } }),
      INVALID_PARAMS,
    );
    expect(gone.message).toContain('No note zz');
    expect(gone.message).toContain('Read notes://index');
    const bad = await expectRpcError(
      harness.client.getPrompt({ name: 'bad-uri', arguments: { id: 'a1' } }),
      INTERNAL_ERROR,
    );
    expect(bad.message).toMatch(/Internal error in prompt bad-uri.*\(ref [0-9a-f]{8}\)/);
    expect(harness.logs.join('\n')).toContain('Resource not found: nowhere://x');
  });

  it('renders the messages of a prompt', async () => {
    const { client } = await start();
    const prompt = await client.getPrompt({ name: 'review-note', arguments: { id: 'a1', tag: 'urgent' } });
    expect(prompt.description).toBe('Review one note and tag it');
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: { type: 'text', text: 'Read note a1 with `echo_text` and tag it urgent. It is below.' },
      },
      // A resource message is read when the prompt renders and sent embedded.
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'notes://a1', mimeType: 'text/plain', text: 'first note' },
        },
      },
      { role: 'assistant', content: { type: 'text', text: 'On it.' } },
    ]);
    const single = await client.getPrompt({ name: 'summarise' });
    expect(single.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Summarise the notes with `echo_text`.' } },
    ]);
  });

  it('answers -32602 naming a missing required argument', async () => {
    const { client } = await start();
    const error = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { tag: 'x' } }),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('`id` is required');
    const blank = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: '  ' } }),
      INVALID_PARAMS,
    );
    expect(blank.message).toContain('`id` is required');
  });

  it('answers -32602 to an unknown argument, naming it and the allowed ones', async () => {
    const { client } = await start();
    const error = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: 'a1', colour: 'red' } }),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('`colour`');
    expect(error.message).toContain('allowed: id, tag');
    // Own names only: `constructor` is not an argument because every object inherits it.
    const inherited = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: 'a1', constructor: 'x' } }),
      INVALID_PARAMS,
    );
    expect(inherited.message).toContain('unknown argument `constructor`');
  });

  it('keeps a refusal small however many or long the argument names a client sends', async () => {
    const { client } = await start();
    const long = 'k'.repeat(50_000);
    const single = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: 'a1', [long]: 'x' } }),
      INVALID_PARAMS,
    );
    expect(single.message).toContain(`unknown argument \`${'k'.repeat(40)}…\``);
    expect(single.message.length).toBeLessThan(300);
    const many = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, i) => [`extra_${i}_${'n'.repeat(200)}`, 'x']),
    );
    const counted = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: 'a1', ...many } }),
      INVALID_PARAMS,
    );
    expect(counted.message).toContain(' and 990 more (allowed: id, tag)');
    expect(counted.message.length).toBeLessThan(1_000);
    // Arguments that are not strings fail the protocol's own check: the problems are counted past ten, and
    // each key is cut.
    const typed = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`${i}${'t'.repeat(200)}`, i]));
    const request = client.request(
      { method: 'prompts/get', params: { name: 'review-note', arguments: typed } },
      GetPromptResultSchema,
    );
    const refused = await expectRpcError(request, INVALID_PARAMS);
    expect(refused.message).toMatch(/; and 990 more problems$/);
    expect(refused.message.length).toBeLessThan(2_000);
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, i]));
    const one = client.request(
      { method: 'prompts/get', params: { name: 'review-note', arguments: eleven } },
      GetPromptResultSchema,
    );
    expect((await expectRpcError(one, INVALID_PARAMS)).message).toMatch(/; and 1 more problem$/);
  });

  it('answers -32602 to an argument over 10,000 characters, naming it and the limit; 10,000 is accepted', async () => {
    const { client } = await start();
    const error = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: 'a1', tag: 'x'.repeat(10_001) } }),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('Invalid arguments for prompt review-note');
    expect(error.message).toContain('`tag` must have at most 10000 characters');
    // The refusal does not echo the argument back.
    expect(error.message).not.toContain('x'.repeat(100));
    const longest = 'x'.repeat(10_000);
    const prompt = await client.getPrompt({ name: 'review-note', arguments: { id: 'a1', tag: longest } });
    expect(prompt.messages[0]?.content).toEqual({
      type: 'text',
      text: `Read note a1 with \`echo_text\` and tag it ${longest}. It is below.`,
    });
    await expectStillServing(client);
  });

  it('answers -32602 with the hint when check refuses the arguments, before rendering', async () => {
    const { client } = await start();
    const error = await expectRpcError(
      client.getPrompt({ name: 'review-note', arguments: { id: 'zz' } }),
      INVALID_PARAMS,
    );
    expect(error.message).toContain('No note zz. Read notes://index for the ids');
    await expectStillServing(client);
  });

  it('answers -32602 to an unknown prompt, listing the real ones', async () => {
    const { client } = await start();
    const error = await expectRpcError(client.getPrompt({ name: 'nope' }), INVALID_PARAMS);
    expect(error.message).toContain('review-note, summarise');
    await expectStillServing(client);
  });
});

describe('Runtime.close', () => {
  it('waits for an in-flight tool call to finish before resolving, then closes the definition', async () => {
    const definition = createSample();
    harness = await connect(definition);
    const { client, runtime } = harness;
    let settled = false;
    const pending = client
      .callTool({ name: 'slow_echo', arguments: { text: 'late', ms: 300 } })
      .then((result) => {
        settled = true;
        return result;
      });
    await waitFor(
      () => harness?.logs.some((line) => line.includes('slow_echo started: late')) ?? false,
      'the call',
    );
    expect(settled).toBe(false);
    await runtime.close();
    expect(settled).toBe(true);
    expect(expectToolOk(await pending)).toEqual({ text: 'late' });
    expect(definition.deps.closed).toBe(1);
    // A second close is a no-op.
    await runtime.close();
    expect(definition.deps.closed).toBe(1);
  });

  it('also waits for a call that arrives while it is draining', async () => {
    harness = await connect(createSample());
    const { client, runtime } = harness;
    const first = client.callTool({ name: 'slow_echo', arguments: { text: 'first', ms: 200 } });
    await waitFor(
      () => harness?.logs.some((line) => line.includes('slow_echo started: first')) ?? false,
      'first',
    );
    const closing = runtime.close();
    const second = client.callTool({ name: 'slow_echo', arguments: { text: 'second', ms: 400 } });
    await waitFor(
      () => harness?.logs.some((line) => line.includes('slow_echo started: second')) ?? false,
      'second',
    );
    await closing;
    expect(expectToolOk(await first)).toEqual({ text: 'first' });
    expect(expectToolOk(await second)).toEqual({ text: 'second' });
  });

  it('gives up waiting after drainMs: close resolves while the call is still running', async () => {
    // A server-side signal for the end of the call: the handler itself returning.
    const { definition, returned } = trackSlowEcho(createSample());
    harness = await connect(definition);
    const { client, runtime } = harness;
    const pending = client
      .callTool({ name: 'slow_echo', arguments: { text: 'late', ms: 5_000 } })
      .catch((e: unknown) => e);
    await waitFor(
      () => harness?.logs.some((line) => line.includes('slow_echo started: late')) ?? false,
      'the call',
    );
    const first = await Promise.race([
      runtime.close({ drainMs: 100 }).then(() => 'close' as const),
      returned,
    ]);
    expect(first).toBe('close');
    // The session closed under the call: the client gets no result for it.
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('errors and the drain outside tool calls', () => {
  /** The sample with its `note` resource changed by `patch`. */
  async function startWithNote(patch: (note: ResourceDefinition) => void) {
    const definition = createSample();
    const index = definition.resources?.findIndex((resource) => resource.name === 'note') ?? -1;
    const shared = definition.resources?.[index];
    if (!definition.resources || !shared) throw new Error('the sample has no note resource');
    // A copy: the resource objects are shared by every createSample(), and a patch must not outlive its test.
    const note = { ...shared };
    patch(note);
    definition.resources[index] = note;
    harness = await connect(definition);
    return harness;
  }

  it('answers an unexpected error of any handler with -32603 and a reference only, and logs it', async () => {
    const { client, logs } = await startWithNote((note) => {
      note.list = () => {
        throw new Error(LEAKY_MESSAGE);
      };
    });
    const error = await expectRpcError(client.listResources(), INTERNAL_ERROR);
    expect(error.message).toMatch(/Internal error in resources\/list.*\(ref [0-9a-f]{8}\)/);
    expect(error.message).not.toContain('hunter2');
    expect(logs.join('')).toContain(LEAKY_MESSAGE);
    await expectStillServing(client);
  });

  it('keeps a subscription working when watching for other processes fails', async () => {
    const definition = createSample();
    definition.watch = () => {
      throw new Error('cannot watch');
    };
    harness = await connect(definition);
    const { client, logs } = harness;
    const updates = collectUpdates(client);
    await client.subscribeResource({ uri: 'notes://a1' });
    expect(logs.join('')).toMatch(/internal error in watch/);
    expectToolOk(await client.callTool({ name: 'update_note', arguments: { id: 'a1', text: 'new' } }));
    await flush(client);
    expect(updates).toEqual(['notes://a1']);
  });

  it('waits at close for a resource read in flight', async () => {
    let started = false;
    let release!: (text: string) => void;
    const { client, runtime, logs } = await startWithNote((note) => {
      note.read = () => {
        started = true;
        return new Promise<string>((resolve) => {
          release = resolve;
        });
      };
    });
    const read = client.readResource({ uri: 'notes://a1' });
    await waitFor(() => started, 'the read to start');
    const closing = runtime.close({ drainMs: 10_000 });
    // Close waits for the read (it says so in the log) rather than resolving under it.
    const waiting = waitFor(
      () => logs.some((line) => line.includes('waiting for in-flight calls')),
      'close to wait for the read',
    );
    const first = await Promise.race([
      closing.then(() => 'closed'),
      waiting.then(
        () => 'waiting',
        () => 'never waited',
      ),
    ]);
    expect(first).toBe('waiting');
    release('read late');
    await closing;
    expect((await read).contents[0]).toMatchObject({ text: 'read late' });
  });
});

describe('requests through the SDK dispatch', () => {
  /** A raw session on an in-memory pair: what the server answers, by id. */
  async function rawSession() {
    const runtime = new Runtime(createSample(), { logger: createLogger('notes', { level: 'silent' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const answers = new Map<unknown, JSONRPCMessage>();
    clientSide.onmessage = (message) => {
      // The server's own ping to the client is answered, as a client would.
      if ('method' in message && message.method === 'ping' && 'id' in message)
        clientSide.send({ jsonrpc: '2.0', id: message.id, result: {} });
      else if ('id' in message) answers.set(message.id, message);
    };
    const server = await runtime.connect(serverSide);
    await clientSide.start();
    const send = (message: Record<string, unknown>) =>
      clientSide.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
    await send({ id: 1, method: 'initialize', params: RAW_INITIALIZE_PARAMS });
    await send({ method: 'notifications/initialized' });
    const close = async () => {
      await clientSide.close();
      await runtime.close();
    };
    return { server, answers, send, close };
  }

  // A request with a member JSON-RPC does not have: core's transports answer it -32600 before the runtime
  // sees it, and the SDK's dispatch drops it as a message of no known type.
  const odd = { id: 2, method: 'tools/list', extra: true };

  it('answers requests, drops what is no message, and passes responses to the server', async () => {
    const { server, answers, send, close } = await rawSession();
    await send(odd);
    // A response whose method member is not a string is a response (which the SDK drops), not a request.
    await send({ id: 4, method: 5, result: {} });
    await send({ id: 3, method: 'tools/call', params: { name: 'echo_text', arguments: { text: 'hi' } } });
    await waitFor(() => answers.has(3), 'the tools/call answer');
    expect(answers.has(2)).toBe(false);
    expect(answers.has(4)).toBe(false);
    expect(answers.get(3)).toMatchObject({ result: { structuredContent: { text: 'hi' } } });
    // A response to the server's own request goes through the SDK's dispatch to the request waiting for it.
    await expect(server.ping()).resolves.toEqual({});
    await close();
  });
});

describe('output checks', () => {
  /** The sample server with a tool answering `answer` against its output schema. */
  async function startAnswering(answer: unknown) {
    const definition = createSample();
    definition.tools = [
      ...definition.tools,
      defineTool({
        name: 'answer_it',
        title: 'Answer it',
        description: 'Return a fixed answer; for tests of the output check.',
        input: {},
        output: { key: z.string(), count: z.number().int() },
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        handler: () => answer as { key: string; count: number },
      }),
    ];
    harness = await connect(definition);
    return harness;
  }

  it('sends an answer with a key the schema lacks without it', async () => {
    const { client } = await startAnswering({ key: 'a', count: 1, secret: '/srv/x' });
    const result = await client.callTool({ name: 'answer_it', arguments: {} });
    expect(expectToolOk(result)).toEqual({ key: 'a', count: 1 });
    expect(JSON.stringify(result)).not.toContain('/srv/x');
  });

  it('fails a call whose answer does not match its schema, naming the tool in the log only', async () => {
    const { client, logs } = await startAnswering({ key: 'a', count: 'one' });
    const error = expectToolError(await client.callTool({ name: 'answer_it', arguments: {} }), 'internal');
    expect(error.message).not.toContain('count');
    expect(logs.join('')).toMatch(/output of answer_it does not match its schema/);
  });
});

describe('outputs listed by type', () => {
  /** The sample server with a tool answering `answer`, its `items` listed by type. */
  async function startListing(answer: unknown) {
    const definition = createSample();
    definition.tools = [
      ...definition.tools,
      defineTool({
        name: 'list_items',
        title: 'List items',
        description: 'Return fixed items; for tests of outputs listed by type.',
        input: {},
        output: {
          items: listedByType(z.array(z.object({ id: z.number().int(), by: z.string().nullable() }))),
          count: z.number().int(),
        },
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        handler: () => answer as { items: { id: number; by: string | null }[]; count: number },
      }),
    ];
    harness = await connect(definition);
    return harness;
  }

  it('lists the field by its type, and the SDK client accepts the full answer against it', async () => {
    const { client } = await startListing({ items: [{ id: 1, by: null, extra: 'x' }], count: 1 });
    const listed = (await client.listTools()).tools.find((t) => t.name === 'list_items');
    expect(listed?.outputSchema).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'object' } }, count: { type: 'integer' } },
    });
    const result = await client.callTool({ name: 'list_items', arguments: {} });
    // Validated in full: the item's unknown key is stripped as at the top level.
    expect(expectToolOk(result)).toEqual({ items: [{ id: 1, by: null }], count: 1 });
  });

  it('still checks the items against their whole schema at run time', async () => {
    const { client, logs } = await startListing({ items: [{ id: 'one', by: null }], count: 1 });
    expectToolError(await client.callTool({ name: 'list_items', arguments: {} }), 'internal');
    expect(logs.join('')).toMatch(/output of list_items does not match its schema/);
  });
});

describe('mapError', () => {
  it('logs an internal error it maps as an error with its cause, which the answer leaves out', async () => {
    const definition = createSample();
    definition.mapError = (error) =>
      new ShipyardError('internal', 'The data file sample.db is damaged', {
        hint: 'Restore it from a backup',
        cause: new Error(`/srv/data/sample.db: ${(error as Error).message}`),
      });
    harness = await connect(definition);
    const { client, logs } = harness;
    const error = expectToolError(
      await client.callTool({ name: 'fail_with', arguments: { kind: 'plain' } }),
      'internal',
    );
    expect(error).toEqual({
      code: 'internal',
      message: 'The data file sample.db is damaged',
      hint: 'Restore it from a backup',
    });
    expect(logs.join('')).toMatch(
      / error .*tool fail_with: The data file sample.db is damaged .*"cause":"\/srv\/data\/sample.db: /,
    );
  });

  it('leaves an error internal when the definition maps it to nothing, or its mapper throws', async () => {
    const definition = createSample();
    definition.mapError = () => {
      throw new Error('mapper broke');
    };
    harness = await connect(definition);
    const { client, logs } = harness;
    const error = expectToolError(
      await client.callTool({ name: 'fail_with', arguments: { kind: 'busy' } }),
      'internal',
    );
    expect(error.message).toMatch(/Internal error in tool fail_with/);
    expect(logs.join('')).toMatch(/ error .*internal error in tool fail_with/);
  });
});
