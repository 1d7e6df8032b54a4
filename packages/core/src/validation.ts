import type { z } from 'zod';

/**
 * Turn zod issues into one plain sentence per problem, naming the field and what was expected. An unknown
 * argument that looks like an allowed one is named with it (`ticket_key`: did you mean `key`?); a null given
 * for an argument in `optionalKeys` is told to leave it out.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  allowedKeys: readonly string[],
  optionalKeys: readonly string[] = [],
): string {
  // A value of the wrong type is the whole story for its field: zod still runs the field's other checks
  // (an array's .max(3) on a string reads "at most 3 characters"), which would only mislead.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => fieldName(i.path)));
  const meant = suggestArguments(issues, allowedKeys);
  return issues
    .filter((issue) => issue.code === 'invalid_type' || !wrongType.has(fieldName(issue.path)))
    .map((issue) => describeIssue(issue, allowedKeys, meant, optionalKeys))
    .join('; ');
}

/**
 * For each unknown top-level argument, the allowed one it most likely means: the one required argument
 * missing when a single unknown one was given (`name` for `title`), or else the only allowed argument
 * that differs just in case or separators (`Key`, `dueDate`), is a part of it (`ticket_key` for `key`) or is
 * a typo away (`priorty`, `state` for `status`).
 */
export function suggestArguments(
  issues: readonly z.core.$ZodIssue[],
  allowedKeys: readonly string[],
): Map<string, string> {
  const unknown = issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : [],
  );
  const missing = issues.flatMap((i) => (isMissing(i) && i.path.length === 1 ? [String(i.path[0])] : []));
  const meant = new Map<string, string>();
  if (unknown.length === 1 && missing.length === 1)
    return meant.set(unknown[0] as string, missing[0] as string);
  for (const key of unknown) {
    const close = allowedKeys.filter((allowed) => looksLike(key, allowed));
    if (close.length === 1) meant.set(key, close[0] as string);
  }
  return meant;
}

/** A required argument left out: zod reports it as the wrong type, or as no value of an enum. */
const isMissing = (issue: z.core.$ZodIssue) =>
  (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
  issue.path.length > 0 &&
  issue.input === undefined;

function looksLike(given: string, allowed: string): boolean {
  const plain = (name: string) => name.toLowerCase().replace(/[_-]/g, '');
  const [a, b] = [plain(given), plain(allowed)];
  if (a === b || given.toLowerCase().split(/[_-]/).includes(allowed)) return true;
  const distance = editDistance(a, b);
  // Two edits only with a shared start: `state` means `status`, but `text` does not mean `type`.
  return distance <= 1 || (distance === 2 && a.slice(0, 3) === b.slice(0, 3));
}

/**
 * Edits from one name to the other: a character added, dropped, changed, or two neighbours swapped (`tpye`).
 * Both are short (argument names), so the full table is cheap.
 */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** Case and separators, as a model may write an enum value: `In Progress` and `in-progress` are in_progress. */
const loose = (value: string) =>
  value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/**
 * The arguments with each value refused by an enum replaced by the one allowed value it matches but for case
 * and separators (`High` is high), or undefined when there is none. Other values are left as they are.
 */
export function easeEnumValues(args: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  let eased: unknown;
  for (const issue of issues) {
    if (issue.code !== 'invalid_value' || typeof issue.input !== 'string' || issue.path.length === 0)
      continue;
    const want = loose(issue.input);
    const matches = issue.values.filter((value) => typeof value === 'string' && loose(value) === want);
    if (matches.length !== 1) continue;
    eased ??= structuredClone(args);
    let parent = eased as Record<PropertyKey, unknown>;
    for (const part of issue.path.slice(0, -1)) parent = parent[part] as Record<PropertyKey, unknown>;
    parent[issue.path[issue.path.length - 1] as PropertyKey] = matches[0];
  }
  return eased;
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'arguments';
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

function describeIssue(
  issue: z.core.$ZodIssue,
  allowedKeys: readonly string[],
  meant: ReadonlyMap<string, string>,
  optionalKeys: readonly string[],
): string {
  const field = `\`${fieldName(issue.path)}\``;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = issue.keys
        .map((k) => (meant.has(k) ? `\`${k}\` (did you mean \`${meant.get(k)}\`?)` : `\`${k}\``))
        .join(', ');
      const allowed = allowedKeys.length > 0 ? allowedKeys.join(', ') : 'none';
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${keys} (allowed: ${allowed})`;
    }
    case 'invalid_type': {
      const received = (issue.input === undefined ? 'nothing' : describeValue(issue.input)) as string;
      if (issue.input === undefined && issue.path.length > 0)
        return `${field} is required (${issue.expected})`;
      const wrong = `${field} must be ${article(issue.expected)}, got ${received}`;
      if (issue.input === null && issue.path.length === 1 && optionalKeys.includes(String(issue.path[0])))
        return `${wrong}: leave it out to give none`;
      // One value where a list is wanted: show the list it would be.
      if (issue.expected === 'array' && ['string', 'number'].includes(typeof issue.input))
        return `${wrong}, e.g. [${clipped(JSON.stringify(issue.input))}]`;
      return wrong;
    }
    case 'too_small':
      return `${field} ${bound(issue.origin, 'at least', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `${field} ${bound(issue.origin, 'at most', issue.maximum, issue.inclusive)}`;
    case 'invalid_value': {
      if (isMissing(issue))
        return `${field} is required (one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')})`;
      // The value named back, clipped.
      const shown = 'input' in issue ? JSON.stringify(issue.input) : undefined;
      const got = shown === undefined ? '' : `, got ${clipped(shown)}`;
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`;
    }
    case 'invalid_format':
      // A pattern is what the value must look like, not a format to name ("a valid regex" misleads); a
      // message the schema gives for it (zod's own names the pattern) says that in words.
      if (issue.format !== 'regex' || !('pattern' in issue))
        return `${field} must be a valid ${issue.format}`;
      return issue.message.includes(String(issue.pattern))
        ? `${field} must match ${issue.pattern}`
        : `${field} ${issue.message}`;
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
      // A trimmed field reports "  " as empty: it is blank, whatever its length before the trim.
      if (word === 'at least' && exact === 1) return 'must not be empty or blank';
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

/** A value named back in a message, cut at 40 characters (a megabyte of it would flood the answer). */
const clipped = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}
