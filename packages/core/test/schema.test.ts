import { describe, expect, it } from 'vitest';
import { z } from '../src/index.js';
import { listedByType, listedHints, shapeToJsonSchema } from '../src/schema.js';

describe('shapeToJsonSchema', () => {
  it('trims keywords that only cost tokens, never fields that share their names', () => {
    const output = shapeToJsonSchema(
      {
        name: z.string(),
        required: z.boolean(),
        propertyNames: z.array(z.string()),
        count: z.number().int(),
      },
      'output',
    );
    expect(output).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        required: { type: 'boolean' },
        propertyNames: { type: 'array', items: { type: 'string' } },
        count: { type: 'integer' },
      },
    });
  });
});

describe('listedByType', () => {
  const shape = {
    links: listedByType(z.record(z.string(), z.array(z.object({ key: z.string() })))).optional(),
    history: listedByType(z.array(z.object({ at: z.string() }))),
  };

  it('lists an output field by its type and its items type alone', () => {
    expect(shapeToJsonSchema(shape, 'output')).toEqual({
      type: 'object',
      properties: { links: { type: 'object' }, history: { type: 'array', items: { type: 'object' } } },
    });
  });

  it('leaves an input field whole, without the mark', () => {
    expect(shapeToJsonSchema(shape, 'input').properties).toEqual({
      links: {
        type: 'object',
        propertyNames: { type: 'string' },
        additionalProperties: {
          type: 'array',
          items: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        },
      },
      history: {
        type: 'array',
        items: { type: 'object', properties: { at: { type: 'string' } }, required: ['at'] },
      },
    });
  });
});

describe('listedHints', () => {
  const hints = (
    readOnlyHint: boolean,
    destructiveHint: boolean,
    idempotentHint: boolean,
    openWorldHint: boolean,
  ) => ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint });

  it('lists on a read-only tool only readOnlyHint and openWorldHint', () => {
    expect(listedHints(hints(true, false, true, false))).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(listedHints(hints(true, false, false, true))).toEqual({ readOnlyHint: true, openWorldHint: true });
  });

  it('keeps destructiveHint and openWorldHint explicit on a write tool, idempotentHint only when true', () => {
    expect(listedHints(hints(false, false, false, false))).toEqual({
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(listedHints(hints(false, true, false, true))).toEqual({
      destructiveHint: true,
      openWorldHint: true,
    });
    expect(listedHints(hints(false, true, true, false))).toEqual({
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('leaves out the hints a definition lacks, which the linter reports, rather than failing', () => {
    expect(listedHints(undefined)).toEqual({});
    expect(listedHints({ readOnlyHint: false, destructiveHint: true })).toEqual({ destructiveHint: true });
  });

  it('means, read with the MCP defaults, what the definition says', () => {
    const defaults = {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    };
    for (const bits of Array.from({ length: 16 }, (_, n) => n)) {
      const def = hints(Boolean(bits & 8), Boolean(bits & 4), Boolean(bits & 2), Boolean(bits & 1));
      const read = { ...defaults, ...listedHints(def) };
      expect(read.readOnlyHint).toBe(def.readOnlyHint);
      expect(read.openWorldHint).toBe(def.openWorldHint);
      // destructiveHint and idempotentHint mean something only on a write tool.
      if (!def.readOnlyHint)
        expect([read.destructiveHint, read.idempotentHint]).toEqual([
          def.destructiveHint,
          def.idempotentHint,
        ]);
    }
  });
});
