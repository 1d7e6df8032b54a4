import { describe, expect, it } from 'vitest';
import { z } from '../src/index.js';
import { listedByType, listedHints, listedWithoutBounds, shapeToJsonSchema } from '../src/schema.js';

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

describe('listedWithoutBounds', () => {
  const key = listedWithoutBounds(z.string().min(3).max(24)).describe('Ticket key, e.g. SHIP-42');
  const shape = {
    key,
    parent: key.nullable(),
    due: listedWithoutBounds(z.string().regex(/^\d{4}-\d{2}-\d{2}$/)).describe('Due date, YYYY-MM-DD'),
    keys: listedWithoutBounds(z.array(z.string().max(24)).min(1).max(5)).describe('Ticket keys'),
    title: z.string().max(200).describe('One-line summary'),
  };

  it('lists an input field without its length bounds and pattern, keeping type and description', () => {
    expect(shapeToJsonSchema(shape, 'input').properties).toEqual({
      key: { type: 'string', description: 'Ticket key, e.g. SHIP-42' },
      parent: { type: ['string', 'null'], description: 'Ticket key, e.g. SHIP-42' },
      due: { type: 'string', description: 'Due date, YYYY-MM-DD' },
      // Only the marked node loses its bounds: its items keep theirs.
      keys: { type: 'array', items: { type: 'string', maxLength: 24 }, description: 'Ticket keys' },
      title: { type: 'string', maxLength: 200, description: 'One-line summary' },
    });
  });

  it('still validates the bounds it leaves out of the listing', () => {
    const input = z.object(shape);
    const valid = { key: 'SHIP-1', parent: null, due: '2026-12-01', keys: ['SHIP-1'], title: 'x' };
    expect(input.safeParse(valid).success).toBe(true);
    expect(input.safeParse({ ...valid, key: 'S'.repeat(25) }).success).toBe(false);
    expect(input.safeParse({ ...valid, parent: 'S'.repeat(25) }).success).toBe(false);
    expect(input.safeParse({ ...valid, due: '1 Dec' }).success).toBe(false);
    expect(input.safeParse({ ...valid, keys: [] }).success).toBe(false);
  });

  it('changes nothing in an output schema but the mark', () => {
    expect(shapeToJsonSchema({ key: listedWithoutBounds(z.string().max(24)) }, 'output')).toEqual({
      type: 'object',
      properties: { key: { type: 'string', maxLength: 24 } },
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
