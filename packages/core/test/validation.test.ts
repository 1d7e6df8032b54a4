import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues } from '../src/validation.js';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected the value to be refused');
  return parsed.error.issues;
};

describe('describeIssues', () => {
  it('names the pattern a value must match', () => {
    const shape = { key: z.string().regex(/^[A-Z]{2,10}$/) };
    expect(describeIssues(issuesOf(z.object(shape), { key: 'ship' }), Object.keys(shape))).toBe(
      '`key` must match /^[A-Z]{2,10}$/',
    );
  });

  it('names other formats', () => {
    const shape = { mail: z.email() };
    expect(describeIssues(issuesOf(z.object(shape), { mail: 'nope' }), Object.keys(shape))).toBe(
      '`mail` must be a valid email',
    );
  });
});
