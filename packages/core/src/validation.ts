import type { z } from 'zod';

export interface DescribeOptions {
  /** Arguments a caller may leave out: a null given for one is told to leave it out. */
  optionalKeys?: readonly string[];
  /**
   * Of those, the ones whose description offers `"none"` as a value (`Name, "me" or "none"`): a null for one
   * is told that too, as for an enum with "none", since leaving it out may mean something else (any).
   */
  noneKeys?: readonly string[];
  /** What each unknown argument most likely means (from suggestArguments). */
  meant?: ReadonlyMap<string, Suggestion>;
}

/** The allowed argument an unknown one most likely means, found by its name or as the one missing. */
export interface Suggestion {
  argument: string;
}

/**
 * Turn zod issues into one plain sentence per problem, naming the field and what was expected. An unknown
 * argument that looks like an allowed one is named with it (`ticket_key`: did you mean `key`?).
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  allowedKeys: readonly string[],
  options: DescribeOptions = {},
): string {
  // A value of the wrong type is the whole story for its field: zod still runs the field's other checks
  // (an array's .max(3) on a string reads "at most 3 characters"), which would only mislead.
  const wrongType = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => fieldName(i.path)));
  const context = {
    allowedKeys,
    optionalKeys: options.optionalKeys ?? [],
    noneKeys: options.noneKeys ?? [],
    meant: options.meant ?? suggestArguments(issues, allowedKeys),
  };
  const described = issues
    .filter((issue) => issue.code === 'invalid_type' || !wrongType.has(fieldName(issue.path)))
    .map((issue) => describeIssue(issue, context));
  // A thousand bad values make a thousand problems: the first few tell the caller what to fix.
  const more = described.length - ISSUES_SHOWN;
  const rest = more > 1 ? `; and ${more} more problems` : more === 1 ? '; and 1 more problem' : '';
  return `${described.slice(0, ISSUES_SHOWN).join('; ')}${rest}`;
}

/** Problems shown in one message; the rest are counted. */
const ISSUES_SHOWN = 10;

/**
 * Names a client sent (unknown arguments, say), as a message lists them: each cut and escaped as
 * {@link named} does at 40 characters, the first UNKNOWN_SHOWN of them, and how many more there are.
 */
export function namesShown(names: readonly string[]): string {
  const shown = names.slice(0, UNKNOWN_SHOWN).map((name) => `\`${named(clipped(name))}\``);
  return `${shown.join(', ')}${names.length > UNKNOWN_SHOWN ? ` and ${names.length - UNKNOWN_SHOWN} more` : ''}`;
}

/** Unknown argument names longer than this get no suggestion (and comparing them would only cost time). */
const MAX_SUGGESTED_NAME = 64;

/**
 * For each unknown top-level argument, the allowed one it most likely means: the one the tool names it an
 * alias of (`tags` for `labels`, in any case); else the only allowed argument that differs just in case or
 * separators (`Key`, `dueDate`), is a part of it (`ticket_key` for `key`) or is a typo away (`priorty`,
 * `state` for `status`); failing that, when it is the only unknown argument and exactly one required
 * argument is missing, that one (`name` for `title`, `comment` for `body`), unless the tool's `elsewhere`
 * says where that argument belongs.
 */
export function suggestArguments(
  issues: readonly z.core.$ZodIssue[],
  allowedKeys: readonly string[],
  aliases: Readonly<Partial<Record<string, string>>> = {},
  elsewhere: Readonly<Record<string, string>> = {},
): Map<string, Suggestion> {
  const unknown = issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : [],
  );
  const missing = issues.flatMap((i) => (isMissing(i) && i.path.length === 1 ? [String(i.path[0])] : []));
  const meant = new Map<string, Suggestion>();
  // Only the names a message shows (namesShown) get a suggestion: comparing every unknown name is too slow.
  for (const key of unknown.slice(0, UNKNOWN_SHOWN)) {
    if (key.length > MAX_SUGGESTED_NAME) continue;
    const alias = Object.hasOwn(aliases, key.toLowerCase()) ? aliases[key.toLowerCase()] : undefined;
    const close = alias ? [alias] : allowedKeys.filter((allowed) => looksLike(key, allowed));
    if (close.length === 1) meant.set(key, { argument: close[0] as string });
    else if (unknown.length === 1 && missing.length === 1 && !Object.hasOwn(elsewhere, key.toLowerCase()))
      meant.set(key, { argument: missing[0] as string });
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
  if (a === b || given.toLowerCase().split(/[_-]/).includes(allowed.toLowerCase())) return true;
  return typoOf(a, b);
}

/**
 * Whether `a` is `b` mistyped, both of three letters or more: edits between the two can be no fewer than the
 * difference in length, so only near lengths are compared. Two edits only with a shared start: `state` means
 * `status` and `canceled` `cancelled`, but `text` does not mean `type`.
 */
function typoOf(a: string, b: string): boolean {
  if (Math.min(a.length, b.length) < 3 || Math.abs(a.length - b.length) > 2) return false;
  const distance = editDistance(a, b);
  return distance <= 1 || (distance === 2 && a.slice(0, 3) === b.slice(0, 3));
}

/** The one allowed value a refused string is a typo of (see {@link typoOf}), as ` (did you mean "x"?)`. */
function meantValue(input: unknown, values: readonly unknown[]): string {
  if (typeof input !== 'string' || input.length > 40) return '';
  const given = loose(input);
  const near = values.filter((value) => typeof value === 'string' && typoOf(given, loose(value)));
  return near.length === 1 ? ` (did you mean ${JSON.stringify(near[0])}?)` : '';
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

/**
 * An enum value as a model may write it, without case or separators: `In Progress`, `in-progress` and
 * `inprogress` are in_progress, `To Do` is todo.
 */
const loose = (value: string) => value.toLowerCase().replace(/[\s_-]+/g, '');

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
    // The issue's path is in the parsed value; a schema that reshapes its input (a preprocess) may give one
    // that does not lead to this string in the arguments as sent. Those are left alone.
    const copy = (eased ?? structuredClone(args)) as Record<PropertyKey, unknown>;
    const parent = issue.path.slice(0, -1).reduce<unknown>((node, part) => objectOr(node)?.[part], copy);
    const leaf = issue.path[issue.path.length - 1] as PropertyKey;
    const holder = objectOr(parent);
    if (!holder || holder[leaf] !== issue.input) continue;
    holder[leaf] = matches[0];
    eased = copy;
  }
  return eased;
}

const objectOr = (value: unknown) =>
  typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>) : undefined;

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'arguments';
  // A key is the client's text (a record's keys, say): cut and escaped as any name sent back.
  return path
    .map((part, i) =>
      typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${named(clipped(String(part)))}`,
    )
    .join('');
}

interface IssueContext {
  allowedKeys: readonly string[];
  optionalKeys: readonly string[];
  noneKeys: readonly string[];
  meant: ReadonlyMap<string, Suggestion>;
}

/** Unknown argument names shown in one message; the rest are counted. */
const UNKNOWN_SHOWN = 10;

function describeIssue(issue: z.core.$ZodIssue, context: IssueContext): string {
  const { allowedKeys, optionalKeys, noneKeys, meant } = context;
  const field = `\`${fieldName(issue.path)}\``;
  // What a null is told (an enum reports it as a value, others as a type): to pass "none" where that is a
  // value (the enum's, or one the field's description offers), to leave out an argument the caller may omit.
  const key = String(issue.path[0]);
  const optional = issue.input === null && issue.path.length === 1 && optionalKeys.includes(key);
  const offersNone =
    issue.input === null &&
    ((issue.code === 'invalid_value' && issue.values.includes('none')) ||
      (optional && noneKeys.includes(key)));
  const forNull = offersNone
    ? `: pass "none" for none${optional ? ', or leave the argument out' : ''}`
    : optional
      ? ': leave the argument out rather than pass null'
      : '';
  switch (issue.code) {
    case 'unrecognized_keys': {
      const shown = issue.keys.slice(0, UNKNOWN_SHOWN).map((k) => {
        const name = `\`${named(clipped(k))}\``;
        const suggestion = meant.get(k);
        return suggestion ? `${name} (did you mean \`${suggestion.argument}\`?)` : name;
      });
      const more = issue.keys.length > UNKNOWN_SHOWN ? ` and ${issue.keys.length - UNKNOWN_SHOWN} more` : '';
      const allowed = allowedKeys.length > 0 ? allowedKeys.join(', ') : 'none';
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${shown.join(', ')}${more} (allowed: ${allowed})`;
    }
    case 'invalid_type': {
      const received = (issue.input === undefined ? 'nothing' : describeValue(issue.input)) as string;
      if (issue.input === undefined && issue.path.length > 0)
        return `${field} is required (${issue.expected})`;
      // 1e400 in JSON parses as Infinity: a number, but too large for any.
      if (
        (issue.expected === 'number' || issue.expected === 'int') &&
        typeof issue.input === 'number' &&
        !Number.isFinite(issue.input)
      )
        return `${field} must be a finite number, got ${issue.input} (a number too large to hold)`;
      // One word, or words with commas, where a list is wanted: show the list it would be.
      if (issue.expected === 'array' && typeof issue.input === 'string' && issue.input.length <= 40) {
        const items = issue.input
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);
        return `${field} must be an array, e.g. ${escapeRest(JSON.stringify(items.length > 0 ? items : [issue.input]))}, not a string`;
      }
      return `${field} must be ${article(issue.expected)}, got ${received}${forNull}`;
    }
    case 'too_small':
      return `${field} ${bound(issue.origin, 'at least', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `${field} ${bound(issue.origin, 'at most', issue.maximum, issue.inclusive)}`;
    case 'invalid_value': {
      if (isMissing(issue))
        return `${field} is required (one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')})`;
      // The value named back, clipped.
      const got = 'input' in issue ? `, got ${shownValue(issue.input)}` : '';
      const meant = 'input' in issue ? meantValue(issue.input, issue.values) : '';
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}${meant}${forNull}`;
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
    case 'invalid_union': {
      // Shapes told apart by one member (a ref's `type`): the problem in the shape its value picks, or when
      // it picks none, that member's values; not "Invalid input".
      const tags = issue.errors.map((branch) =>
        branch.find((inner) => inner.code === 'invalid_value' && inner.path.length === 1),
      );
      const key = tags.find((tag) => tag !== undefined)?.path[0];
      if (key === undefined || !tags.every((tag) => tag === undefined || tag.path[0] === key))
        return `${field}: ${issue.message}`;
      const picked = issue.errors.find((_, i) => tags[i] === undefined)?.[0];
      if (picked) return describeIssue({ ...picked, path: [...issue.path, ...picked.path] }, context);
      const values = [...new Set(tags.flatMap((tag) => (tag?.code === 'invalid_value' ? tag.values : [])))];
      const input = objectOr(issue.input)?.[key];
      const tag: z.core.$ZodIssue = {
        code: 'invalid_value',
        values,
        path: [...issue.path, key],
        input,
        message: '',
      };
      return describeIssue(tag, context);
    }
    default:
      // A schema's own words: "must …" reads on from the field's name, anything else after a colon.
      return issue.message.startsWith('must ') ? `${field} ${issue.message}` : `${field}: ${issue.message}`;
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

/**
 * A value named back in a message, cut at 40 characters (a megabyte of it would flood the answer), never
 * between the two halves of a character outside the BMP (an emoji).
 */
function clipped(text: string, max = 40): string {
  if (text.length <= max) return text;
  const cut = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, cut)}…`;
}

/**
 * A name or URI a client sent, as an error message names it back: cut at 200 characters; control, line and
 * format characters escaped (`\n`, `\u001b`, the bidi override `\u202e`), so a hostile one can neither
 * flood the answer, break its lines nor make the text around it read in another order.
 */
export function named(text: string): string {
  return clipped(text, 200).replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) =>
    c === '\n' ? '\\n' : escapeCode(c.codePointAt(0) ?? 0),
  );
}

/**
 * A value as JSON, named back in a message: a string cut at 40 characters before it is quoted (so no escape
 * is cut in half), with what JSON leaves as it is that breaks or reorders a line escaped too (U+2028, C1
 * controls, bidi and other format characters).
 */
function shownValue(value: unknown): string {
  return typeof value === 'string' ? quoteText(clipped(value)) : clipped(JSON.stringify(value) ?? '');
}

/**
 * Text quoted in a message as a JSON string, with what JSON.stringify leaves as it is that breaks or
 * reorders a line escaped too (U+2028, C1 controls, bidi and other format characters). For text a server
 * stored (a title, a name) named in its own messages; cut it first, if it may be long.
 */
export const quoteText = (text: string) => escapeRest(JSON.stringify(text));

/** JSON text with the characters JSON.stringify leaves that break or reorder a line escaped. */
const escapeRest = (json: string) =>
  json.replace(/[\u007f-\u009f\u2028\u2029\p{Cf}]/gu, (c) => escapeCode(c.codePointAt(0) ?? 0));

/** `\u001b`, or `\u{e0001}` beyond the BMP (tag characters are format characters too). */
function escapeCode(code: number): string {
  const hex = code.toString(16);
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${shownValue(value)}`;
}
