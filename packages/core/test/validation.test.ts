import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues, easeEnumValues } from '../src/validation.js';

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
      '`include` must be an array, got string "links", e.g. ["links"]; `limit` must be at most 5',
    );
  });
});

describe('describeIssues in words a model can act on', () => {
  it('uses the message a pattern was given instead of the pattern', () => {
    const shape = {
      due: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD, e.g. 2026-12-01'),
    };
    expect(describeIssues(issuesOf(z.object(shape), { due: '12/01/2026' }), Object.keys(shape))).toBe(
      '`due` must be a date as YYYY-MM-DD, e.g. 2026-12-01',
    );
  });

  it('calls a string that is empty after trimming blank, not short', () => {
    const shape = { title: z.string().trim().min(1) };
    expect(describeIssues(issuesOf(z.object(shape), { title: '   ' }), Object.keys(shape))).toBe(
      '`title` must not be empty or blank',
    );
  });

  it('shows the list a single value should have been', () => {
    const shape = { labels: z.array(z.string()) };
    expect(describeIssues(issuesOf(z.object(shape), { labels: 'ui' }), Object.keys(shape))).toBe(
      '`labels` must be an array, got string "ui", e.g. ["ui"]',
    );
  });

  it('suggests the allowed argument an unknown one looks like, and no far-fetched one', () => {
    const shape = { key: z.string().optional(), status: z.string().optional(), type: z.string().optional() };
    const strict = z.strictObject(shape);
    const described = (value: object) => describeIssues(issuesOf(strict, value), Object.keys(shape));
    expect(described({ ticket_key: 'A-1' })).toContain('`ticket_key` (did you mean `key`?)');
    expect(described({ Key: 'A-1' })).toContain('`Key` (did you mean `key`?)');
    expect(described({ state: 'todo' })).toContain('`state` (did you mean `status`?)');
    expect(described({ tpye: 'bug' })).toContain('`tpye` (did you mean `type`?)');
    expect(described({ text: 'x' })).toBe('unknown argument `text` (allowed: key, status, type)');
  });
});

describe('easeEnumValues', () => {
  const schema = z.strictObject({
    status: z.enum(['todo', 'in_progress']).optional(),
    priority: z.array(z.enum(['high', 'low'])).optional(),
    mode: z.enum(['a_b', 'A_B']).optional(),
  });
  const ease = (value: object) => easeEnumValues(value, issuesOf(schema, value));

  it('replaces values off in case, blanks or dashes, in lists too, without touching the input', () => {
    const input = { status: 'In Progress', priority: ['HIGH', 'low'] };
    expect(ease(input)).toEqual({ status: 'in_progress', priority: ['high', 'low'] });
    expect(ease({ status: 'in-progress' })).toEqual({ status: 'in_progress' });
    expect(input).toEqual({ status: 'In Progress', priority: ['HIGH', 'low'] });
  });

  it('leaves values that name no option, or two, as they are', () => {
    expect(ease({ status: 'started' })).toBeUndefined();
    expect(ease({ mode: 'a-B' })).toBeUndefined();
  });
});
