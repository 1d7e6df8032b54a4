import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type BaseContext, defineFor, defineServer, defineTool, type ToolContext, z } from '../src/index.js';
import { connect, expectToolOk, type Harness } from './helpers.js';

interface CounterDeps {
  counts: Map<string, number>;
  step: number;
}

// What a server's src/deps.ts holds.
const { tool, resource, prompt } = defineFor<CounterDeps>();

// None of these annotate ctx: the deps type comes from defineFor. The type assertions fail typecheck when
// ctx.deps is untyped (any), as it is for defineTool without an annotation.
const bump = tool({
  name: 'bump_counter',
  title: 'Bump a counter',
  description: 'Add the step to a counter by name. Returns its new count. Use this to count something.',
  input: { name: z.string().max(20).describe('Counter name') },
  output: { name: z.string(), count: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler(input, ctx) {
    expectTypeOf(input).toEqualTypeOf<{ name: string }>();
    expectTypeOf(ctx).toEqualTypeOf<ToolContext<CounterDeps>>();
    expectTypeOf(ctx.deps).toEqualTypeOf<CounterDeps>();
    // @ts-expect-error: CounterDeps has no such field.
    expect(ctx.deps.missing).toBeUndefined();
    const count = (ctx.deps.counts.get(input.name) ?? 0) + ctx.deps.step;
    ctx.deps.counts.set(input.name, count);
    ctx.changed(`counter://${input.name}`);
    return { name: input.name, count };
  },
});

const counter = resource({
  uri: 'counter://{name}',
  name: 'counter',
  description: 'One counter as text',
  mimeType: 'text/plain',
  variables: {
    name: {
      description: 'Counter name',
      complete: (value, ctx) => {
        expectTypeOf(ctx.deps).toEqualTypeOf<CounterDeps>();
        return [...ctx.deps.counts.keys()].filter((name) => name.startsWith(value));
      },
    },
  },
  read: ({ name = '' }, ctx) => {
    expectTypeOf(ctx).toEqualTypeOf<BaseContext<CounterDeps> & { uri: string }>();
    return String(ctx.deps.counts.get(name) ?? 0);
  },
});

const review = prompt({
  name: 'review-counters',
  description: 'Review the counters and bump the ones that are behind',
  args: {},
  uses: ['bump_counter'],
  messages: (_args, ctx) => {
    expectTypeOf(ctx.deps).toEqualTypeOf<CounterDeps>();
    return `Call \`bump_counter\` for each of ${[...ctx.deps.counts.keys()].join(', ')}.`;
  },
});

describe('defineFor', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('returns the define helpers, which keep each definition as it is', () => {
    const helpers = defineFor<CounterDeps>();
    expect(helpers.tool(bump)).toBe(bump);
    expect(helpers.resource(counter)).toBe(counter);
    expect(helpers.prompt(review)).toBe(review);
    // defineTool still infers the deps from an annotated ctx.
    const plain = defineTool({
      ...bump,
      handler: (input, ctx: ToolContext<CounterDeps>) => bump.handler(input, ctx),
    });
    expectTypeOf(plain).toEqualTypeOf<typeof bump>();
  });

  it("serves what it defined, with the server's deps in ctx", async () => {
    const deps: CounterDeps = { counts: new Map([['a', 1]]), step: 2 };
    const definition = defineServer<CounterDeps>({
      name: 'counters',
      version: '0.0.0',
      deps,
      tools: [bump],
      resources: [counter],
      prompts: [review],
    });
    harness = await connect(definition);
    const { client } = harness;
    expect(expectToolOk(await client.callTool({ name: 'bump_counter', arguments: { name: 'a' } }))).toEqual({
      name: 'a',
      count: 3,
    });
    const read = await client.readResource({ uri: 'counter://a' });
    expect(read.contents[0]).toMatchObject({ uri: 'counter://a', text: '3' });
    const rendered = await client.getPrompt({ name: 'review-counters', arguments: {} });
    expect(rendered.messages[0]?.content).toEqual({
      type: 'text',
      text: 'Call `bump_counter` for each of a.',
    });
  });
});
