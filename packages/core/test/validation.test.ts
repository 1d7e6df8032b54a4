import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues, easeEnumValues, suggestArguments } from '../src/validation.js';

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
      '`include` must be an array, e.g. ["links"], not a string; `limit` must be at most 5',
    );
  });
});

describe('describeIssues on a number JSON cannot hold', () => {
  it('calls 1e400 (parsed as Infinity) too large rather than not a number', () => {
    const shape = { limit: z.number().int().max(100), title: z.string() };
    expect(
      describeIssues(issuesOf(z.object(shape), { limit: Infinity, title: 'x' }), ['limit', 'title']),
    ).toBe('`limit` must be a finite number, got Infinity (a number too large to hold)');
    // Where a string is wanted it is just the wrong type.
    expect(describeIssues(issuesOf(z.object(shape), { limit: 1, title: Infinity }), ['limit', 'title'])).toBe(
      '`title` must be a string, got the number Infinity',
    );
  });
});

describe('describeIssues on a union', () => {
  it('names the values of the member that tells its shapes apart', () => {
    const shape = {
      ref: z.union([
        z.object({ type: z.literal('ref/prompt'), name: z.string() }),
        z.object({ type: z.literal('ref/resource'), uri: z.string() }),
      ]),
    };
    const issues = issuesOf(z.object(shape), { ref: { type: 'ref/bogus' } });
    expect(describeIssues(issues, Object.keys(shape))).toBe(
      '`ref.type` must be one of "ref/prompt", "ref/resource", got "ref/bogus"',
    );
    // The tag picks a shape: what is wrong in that one.
    expect(describeIssues(issuesOf(z.object(shape), { ref: { type: 'ref/prompt' } }), ['ref'])).toBe(
      '`ref.name` is required (string)',
    );
    const untagged = { by: z.union([z.object({ name: z.string() }), z.object({ id: z.number() })]) };
    expect(describeIssues(issuesOf(z.object(untagged), { by: {} }), ['by'])).toBe('`by`: Invalid input');
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

  it('shows the list a single word should have been, and names other values plainly', () => {
    const shape = { labels: z.array(z.string()) };
    const described = (labels: unknown) =>
      describeIssues(issuesOf(z.object(shape), { labels }), Object.keys(shape));
    expect(described('ui')).toBe('`labels` must be an array, e.g. ["ui"], not a string');
    expect(described(5)).toBe('`labels` must be an array, got number 5');
    expect(described('x'.repeat(50))).toBe(`\`labels\` must be an array, got string "${'x'.repeat(40)}…"`);
  });

  it('names text back with nothing that breaks or reorders its line, and no escape cut in half', () => {
    const shape = { sort: z.enum(['updated', 'created']), labels: z.array(z.string()) };
    const described = (input: Record<string, unknown>) =>
      describeIssues(issuesOf(z.object(shape).strict(), input), Object.keys(shape));
    const sort = described({ sort: 'upd\u202Eat\u2028ed', labels: [] });
    // The invisible characters are all that is wrong with it.
    expect(sort).toBe(
      '`sort` must be one of "updated", "created", got "upd\\u202eat\\u2028ed" (did you mean "updated"?)',
    );
    // Cut before it is quoted: 38 letters and a control character end in a whole escape.
    expect(described({ sort: `${'a'.repeat(38)}\u0001xyz`, labels: [] })).toContain(
      `got "${'a'.repeat(38)}\\u0001x…"`,
    );
    expect(described({ sort: 'updated', labels: 'to\u2028do,\u202Edone' })).toContain(
      'e.g. ["to\\u2028do","\\u202edone"]',
    );
    const unknown = described({ sort: 'updated', labels: [], 'que\nry\u202E': 1 });
    expect(unknown).toContain('unknown argument `que\\nry\\u202e`');
    expect(`${sort}${unknown}`).not.toMatch(/[\n\u2028\u202E]/);
  });

  it('names the one allowed value a refused one is a typo of', () => {
    const shape = {
      status: z.enum(['todo', 'done', 'cancelled']),
      priority: z.enum(['urgent', 'high', 'medium', 'low', 'none']),
    };
    const described = (input: Record<string, unknown>) =>
      describeIssues(issuesOf(z.object(shape), input), Object.keys(shape));
    expect(described({ status: 'canceled', priority: 'hgh' })).toBe(
      '`status` must be one of "todo", "done", "cancelled", got "canceled" (did you mean "cancelled"?); ' +
        '`priority` must be one of "urgent", "high", "medium", "low", "none", got "hgh" (did you mean "high"?)',
    );
    // None near, or too short to tell (`lo` for low), or near two: the list alone.
    for (const priority of ['critical', 'lo', 'xx']) {
      expect(described({ status: 'todo', priority })).not.toContain('did you mean');
    }
    expect(
      describeIssues(issuesOf(z.object({ s: z.enum(['done', 'dune']) }), { s: 'dine' }), ['s']),
    ).not.toContain('did you mean');
  });

  it('tells a null for an optional enum to leave it out too, and a null for a required one not', () => {
    const shape = { priority: z.enum(['high', 'low']).optional(), type: z.enum(['bug']) };
    const issues = issuesOf(z.object(shape), { priority: null, type: null });
    expect(describeIssues(issues, Object.keys(shape), { optionalKeys: ['priority'] })).toBe(
      '`priority` must be one of "high", "low", got null: leave the argument out rather than pass null; `type` must be one of "bug", got null',
    );
  });

  it('tells a null for an enum that has "none" to pass "none"', () => {
    const shape = { priority: z.enum(['high', 'none']).optional(), level: z.enum(['none', 'all']) };
    const issues = issuesOf(z.object(shape), { priority: null, level: null });
    expect(describeIssues(issues, Object.keys(shape), { optionalKeys: ['priority'] })).toBe(
      '`priority` must be one of "high", "none", got null: pass "none" for none, or leave the argument out; ' +
        '`level` must be one of "none", "all", got null: pass "none" for none',
    );
  });

  it('lets a schema message that starts with "must" read on from the field, others after a colon', () => {
    const shape = {
      body: z.string().refine((v) => v.trim() !== '', 'must not be blank'),
      when: z.string().refine(() => false, 'not a day we know'),
    };
    expect(describeIssues(issuesOf(z.object(shape), { body: ' ', when: 'x' }), Object.keys(shape))).toBe(
      '`body` must not be blank; `when`: not a day we know',
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
    // A single letter is no typo of another, and a long name is neither compared nor echoed whole.
    expect(described({ y: 1 })).toBe('unknown argument `y` (allowed: key, status, type)');
    const long = 's'.repeat(100_000);
    expect(described({ [long]: 1 })).toBe(
      `unknown argument \`${'s'.repeat(40)}…\` (allowed: key, status, type)`,
    );
  });

  it('counts unknown arguments past the first ten', () => {
    const value = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`extra${i}`, i]));
    expect(describeIssues(issuesOf(z.strictObject({}), value), [])).toBe(
      `unknown arguments ${Array.from({ length: 10 }, (_, i) => `\`extra${i}\``).join(', ')} and 2 more (allowed: none)`,
    );
  });

  it('pairs a lone unknown argument with the one missing required argument, after closer matches', () => {
    const shape = { project: z.string(), title: z.string(), priority: z.string().optional() };
    const strict = z.strictObject(shape);
    const meant = (value: object) =>
      Object.fromEntries(suggestArguments(issuesOf(strict, value), Object.keys(shape)));
    expect(meant({ project: 'A', name: 'x' })).toEqual({ name: { argument: 'title' } });
    // A name near an allowed argument wins over the missing one.
    expect(meant({ title: 'x', priorty: 'high' })).toEqual({ priorty: { argument: 'priority' } });
    // Two unknown arguments: neither is paired with the one missing.
    expect(meant({ project: 'A', name: 'x', colour: 'red' })).toEqual({});
  });

  it('names the argument a tool gives an unknown name as an alias of, in any case, before anything else', () => {
    const shape = { title: z.string(), labels: z.array(z.string()).optional() };
    const strict = z.strictObject(shape);
    const meant = (value: object, aliases = {}) =>
      Object.fromEntries(suggestArguments(issuesOf(strict, value), Object.keys(shape), aliases));
    expect(meant({ title: 'x', tags: ['a'] })).toEqual({});
    expect(meant({ title: 'x', Tags: ['a'] }, { tags: 'labels' })).toEqual({ Tags: { argument: 'labels' } });
    // Before the pairing with a missing argument, and only for the names it lists (not `toString`).
    expect(meant({ tags: ['a'] }, { tags: 'labels' })).toEqual({ tags: { argument: 'labels' } });
    expect(meant({ title: 'x', toString: 1 }, { tags: 'labels' })).toEqual({});
  });

  it('looks for what only the unknown arguments a message names mean: a flood of names costs no more', () => {
    const shape = { priority: z.string().optional() };
    const strict = z.strictObject(shape);
    const meant = (value: object) =>
      Object.keys(Object.fromEntries(suggestArguments(issuesOf(strict, value), Object.keys(shape))));
    const names = (n: number) => Array.from({ length: n }, (_, i) => [`k${i}`, 1]);
    // A near miss among the ten names shown is told; as the eleventh, which the message only counts, it is not.
    expect(meant(Object.fromEntries([...names(9), ['priorty', 1]]))).toEqual(['priorty']);
    expect(meant(Object.fromEntries([...names(10), ['priorty', 1]]))).toEqual([]);
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

  it('leaves a value alone when the issue path does not lead to it in the arguments as sent', () => {
    const listed = z.strictObject({
      s: z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(z.enum(['todo', 'in_progress']))),
    });
    const parsed = z.strictObject({
      j: z.preprocess((v) => JSON.parse(String(v)), z.object({ s: z.enum(['a_b']) })),
    });
    expect(easeEnumValues({ s: 'In Progress' }, issuesOf(listed, { s: 'In Progress' }))).toBeUndefined();
    expect(easeEnumValues({ j: '{"s":"A B"}' }, issuesOf(parsed, { j: '{"s":"A B"}' }))).toBeUndefined();
  });

  it('leaves values that name no option, or two, as they are', () => {
    expect(ease({ status: 'started' })).toBeUndefined();
    expect(ease({ mode: 'a-B' })).toBeUndefined();
  });
});
