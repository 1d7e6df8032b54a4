import { describe, expect, it } from 'vitest';
import { z } from '../src/index.js';
import { shapeToJsonSchema } from '../src/schema.js';

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
