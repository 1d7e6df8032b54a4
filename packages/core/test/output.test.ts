import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, z } from '../src/index.js';
import { compileOutputCheck } from '../src/output.js';
import { createSample } from './fixtures/sample.js';
import { connect, expectToolError, expectToolOk, type Harness } from './helpers.js';

const shape = {
  key: z.string(),
  count: z.number().int().min(0),
  ratio: z.number(),
  state: z.enum(['open', 'done']),
  owner: z.string().nullable(),
  note: z.string().optional(),
  items: z.array(z.object({ id: z.number() })).max(2),
  extra: z.object({ a: z.string() }).loose(),
  byName: z.record(z.string(), z.array(z.string())),
};
const valid = {
  key: 'SHIP-1',
  count: 3,
  ratio: 0.5,
  state: 'open',
  owner: null,
  items: [{ id: 1 }],
  extra: { a: 'x', more: true },
  byName: { blocks: ['SHIP-2'] },
};

describe('compileOutputCheck', () => {
  const check = compileOutputCheck(shape);

  it('passes what zod returns unchanged, and only that', () => {
    expect(check).toBeDefined();
    expect(z.object(shape).parse(valid)).toEqual(valid);
    expect(check?.(valid)).toBe(true);
    expect(check?.({ ...valid, note: undefined })).toBe(true);
    for (const changed of [
      { ...valid, unknown: 1 }, // zod strips it
      { ...valid, items: [{ id: 1, unknown: 1 }] },
      { ...valid, count: 1.5 },
      { ...valid, count: -1 },
      { ...valid, ratio: Number.NaN },
      { ...valid, ratio: Number.POSITIVE_INFINITY },
      { ...valid, items: [{ id: 1 }, { id: 2 }, { id: 3 }] },
      { ...valid, state: 'gone' },
      { ...valid, owner: undefined },
      { ...valid, byName: { blocks: [1] } },
      { ...valid, items: Object.assign([{ id: 1 }], { length: 2 }) }, // a hole
      { ...valid, extra: Object.assign(Object.create({ a: 'x' }), { more: 1 }) }, // a inherited
      { ...valid, byName: JSON.parse('{"__proto__": ["x"]}') }, // zod drops the key
      { ...valid, extra: { a: 'x', toJSON: () => ({}) } }, // JSON writes another object
      Object.assign(new (class Answer {})(), valid), // a class instance
      Object.fromEntries(Object.entries(valid).filter(([key]) => key !== 'owner')), // owner left out
      Object.defineProperty({ ...valid }, 'key', { value: 'SHIP-1', enumerable: false }), // JSON leaves it out
      { ...valid, items: Object.assign([{ id: 1 }], { toJSON: () => ({ leaked: true }) }) },
      { ...valid, byName: { toJSON: () => ({}) } }, // a function is no record value
      { ...valid, byName: { [Symbol('s')]: ['x'] } }, // zod refuses a symbol key in a record
    ]) {
      expect(check?.(changed), JSON.stringify(changed)).toBe(false);
    }
  });

  it('is not built for a recursive shape or one with a symbol key, and does not throw', () => {
    const Node = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    expect(compileOutputCheck({ root: Node })).toBe(undefined);
    expect(compileOutputCheck({ a: z.string(), [Symbol('b')]: z.string() } as never)).toBe(undefined);
    const proto = '__proto__'; // as a computed key, a field of that name (not the object's prototype)
    expect(compileOutputCheck({ [proto]: z.string() })).toBe(undefined);
  });

  it('is not built for what zod changes, or checks otherwise than the lean check', () => {
    const inexact = {
      refine: z.string().refine((s) => s.length > 1),
      transform: z.string().transform((s) => s.length),
      pipe: z.string().pipe(z.string().min(1)),
      trim: z.string().trim(),
      lowerCase: z.string().toLowerCase(),
      format: z.email(),
      pattern: z.string().regex(/^a/i),
      union: z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.string() })]),
      enumKeys: z.record(z.enum(['a', 'b']), z.string()),
      date: z.date(),
      maxLength: z.string().max(12),
      multipleOf: z.number().multipleOf(0.1),
      exactOptional: z.exactOptional(z.string()),
      defaulted: z.string().default('x').optional(),
      catchall: z.object({ a: z.string() }).catchall(z.number()),
      float32: z.float32(),
      refinedBoolean: z.boolean().refine((v) => v),
      overwrittenEnum: z.enum(['x', 'y']).overwrite(() => 'y'),
      readonly: z.object({ a: z.string() }).readonly(),
    };
    for (const [name, field] of Object.entries(inexact)) {
      expect(compileOutputCheck({ ok: z.string(), nested: z.array(z.object({ field })) }), name).toBe(
        undefined,
      );
    }
  });
});

describe('output checks in the runtime', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** The sample server with a tool answering `answer` against `output`. */
  async function start(answer: unknown, crossCheckOutputs: boolean) {
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
    harness = await connect(definition, { crossCheckOutputs });
    return harness;
  }

  it.each([true, false])(
    'sends an answer with a key the schema lacks without it (cross-check %s)',
    async (cross) => {
      const { client } = await start({ key: 'a', count: 1, secret: '/srv/x' }, cross);
      const result = await client.callTool({ name: 'answer_it', arguments: {} });
      expect(expectToolOk(result)).toEqual({ key: 'a', count: 1 });
      expect(JSON.stringify(result)).not.toContain('/srv/x');
    },
  );

  it('sends what the lean check passes as it is, and the cross-check fails what zod would change', async () => {
    const answer = { key: 'a', count: 1, secret: 'kept' };
    const passAll = (h: Harness) => {
      // A lean check that passes everything: what a check looser than zod would do.
      const tools = (h.runtime as unknown as { tools: Map<string, { check?: unknown }> }).tools;
      const tool = tools.get('answer_it');
      if (tool) tool.check = () => true;
    };
    const plain = await start(answer, false);
    passAll(plain);
    expect(expectToolOk(await plain.client.callTool({ name: 'answer_it', arguments: {} }))).toEqual(answer);
    await plain.close();

    const crossed = await start(answer, true);
    passAll(crossed);
    expectToolError(await crossed.client.callTool({ name: 'answer_it', arguments: {} }), 'internal');
    expect(crossed.logs.join('')).toMatch(/output of answer_it: the lean check passed what zod changes/);
    await crossed.close();

    const broken = await start({ key: 'a', count: 'one' }, true);
    passAll(broken);
    expectToolError(await broken.client.callTool({ name: 'answer_it', arguments: {} }), 'internal');
    expect(broken.logs.join('')).toMatch(/does not match its schema: .*\(the lean check passed it\)/s);
  });
});
