import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues } from '../src/validation.js';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value, { reportInput: true }); // as the runtime parses
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

describe('describeIssues on a value of the wrong type', () => {
  it('says only that, not the checks that follow it (an array bound read as characters)', () => {
    const shape = { include: z.array(z.enum(['links', 'history'])).max(3), limit: z.number().max(5) };
    const issues = issuesOf(z.object(shape), { include: 'links', limit: 9 });
    expect(describeIssues(issues, Object.keys(shape))).toBe(
      '`include` must be an array, got string "links"; `limit` must be at most 5',
    );
  });
});
