import type { z } from 'zod';

/** Turn zod issues into one plain sentence per problem, naming the field and what was expected. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], allowedKeys: readonly string[]): string {
  // A value of the wrong type is the whole story for its field: zod still runs the field's other checks
  // (an array's .max(3) on a string reads "at most 3 characters"), which would only mislead.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => fieldName(i.path)));
  return issues
    .filter((issue) => issue.code === 'invalid_type' || !wrongType.has(fieldName(issue.path)))
    .map((issue) => describeIssue(issue, allowedKeys))
    .join('; ');
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'arguments';
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

function describeIssue(issue: z.core.$ZodIssue, allowedKeys: readonly string[]): string {
  const field = `\`${fieldName(issue.path)}\``;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => `\`${k}\``).join(', ');
      const allowed = allowedKeys.length > 0 ? allowedKeys.join(', ') : 'none';
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${keys} (allowed: ${allowed})`;
    }
    case 'invalid_type': {
      const received = (issue.input === undefined ? 'nothing' : describeValue(issue.input)) as string;
      if (issue.input === undefined && issue.path.length > 0)
        return `${field} is required (${issue.expected})`;
      return `${field} must be ${article(issue.expected)}, got ${received}`;
    }
    case 'too_small':
      return `${field} ${bound(issue.origin, 'at least', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `${field} ${bound(issue.origin, 'at most', issue.maximum, issue.inclusive)}`;
    case 'invalid_value': {
      // The value named back, cut like describeValue's (a megabyte of it would flood the answer).
      const shown = 'input' in issue ? JSON.stringify(issue.input) : undefined;
      const got = shown === undefined ? '' : `, got ${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}`;
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`;
    }
    case 'invalid_format':
      // A pattern is what the value must look like, not a format to name ("a valid regex" misleads).
      return issue.format === 'regex' && 'pattern' in issue
        ? `${field} must match ${issue.pattern}`
        : `${field} must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${String(issue.divisor)}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

function bound(origin: string, word: string, limit: number | bigint, inclusive = true): string {
  const n = Number(limit);
  const exact = inclusive ? n : word === 'at least' ? n + 1 : n - 1;
  switch (origin) {
    case 'string':
      return `must have ${word} ${exact} character${exact === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      return `must have ${word} ${exact} item${exact === 1 ? '' : 's'}`;
    default:
      return `must be ${inclusive ? word : word === 'at least' ? 'greater than' : 'less than'} ${inclusive ? n : limit}`;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}
