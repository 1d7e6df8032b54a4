// Job logs as plain lines: cleaning, the error rules, excerpts, slices and search. Pure: no store, no MCP.
import { InvalidInput } from '@shipyard/core';
import { load } from '../load.js';

// ANSI escape sequences: colours (CSI ... m), cursor moves and OSC titles.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI codes start with ESC.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
/** The timestamp GitHub Actions writes before each log line. */
const TIMESTAMP = /^\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/** One raw log line without its timestamp and ANSI codes. */
export function cleanLine(line: string): string {
  const plain = line.includes('\u001b') ? line.replace(ANSI, '') : line;
  return plain.replace(TIMESTAMP, '').replace(/\r$/, '');
}

/** A raw log as clean lines (no trailing empty line). */
export function cleanLog(raw: string): string[] {
  const lines = raw.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map(cleanLine);
}

/** The rules that mark a line as an error line, in the order the README lists them. */
export const ERROR_RULES: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'annotation', pattern: /^(?:##\[error\]|::error\b)/ },
  { name: 'error', pattern: /\b\w*Error:/ },
  { name: 'failed', pattern: /\bFAILED\b|\bFAIL\b(?= )/ },
  { name: 'panic', pattern: /^panic: / },
  { name: 'traceback', pattern: /^Traceback \(most recent call last\)/ },
  { name: 'exit code', pattern: /\bexit (?:code|status) [1-9]\d*\b/i },
];

/** The name of the first rule a line matches, or undefined. */
export function errorRule(line: string): string | undefined {
  for (const rule of ERROR_RULES) if (rule.pattern.test(line)) return rule.name;
  return undefined;
}

export type Excerpt = {
  /** 1-based number of the first line shown. */
  from: number;
  /** 1-based numbers of the error lines in it. */
  error_lines: number[];
  rule: string;
  text: string;
};

/** Most error lines an index keeps (the first ones: later ones usually follow from them). */
export const MAX_INDEXED_ERRORS = 200;

/** The 0-based numbers of the error lines, at most `max`, and how many there were in all. */
export function findErrorLines(
  lines: readonly string[],
  max = MAX_INDEXED_ERRORS,
): { lines: number[]; rules: string[]; total: number } {
  const found: number[] = [];
  const rules: string[] = [];
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    const rule = errorRule(lines[i] as string);
    if (rule === undefined) continue;
    total++;
    if (found.length < max) {
      found.push(i);
      rules.push(rule);
    }
  }
  return { lines: found, rules, total };
}

/** Error lines with `context` lines around each; blocks that touch are merged. */
export function excerpts(
  lines: readonly string[],
  errors: { lines: readonly number[]; rules: readonly string[] },
  context = 3,
): Excerpt[] {
  const out: Array<Excerpt & { to: number }> = [];
  errors.lines.forEach((index, k) => {
    const from = Math.max(0, index - context);
    const to = Math.min(lines.length - 1, index + context);
    const last = out[out.length - 1];
    if (last && from <= last.to + 1) {
      last.to = Math.max(last.to, to);
      last.error_lines.push(index + 1);
      return;
    }
    out.push({ from: from + 1, to, error_lines: [index + 1], rule: errors.rules[k] ?? 'error', text: '' });
  });
  return out.map(({ to, ...excerpt }) => ({
    ...excerpt,
    text: lines.slice(excerpt.from - 1, to + 1).join('\n'),
  }));
}

/** Lines [offset, offset + limit) of a log (0-based offset). */
export function sliceLines(lines: readonly string[], offset: number, limit: number) {
  const slice = lines.slice(offset, offset + limit);
  const next = offset + slice.length;
  return { offset, lines: slice, total_lines: lines.length, next_offset: next < lines.length ? next : null };
}

/** Longest pattern or literal accepted. */
export const MAX_PATTERN = 500;

type Re2 = typeof import('re2js');
let re2: Re2 | undefined;

/** A line test for a literal (case-insensitive unless asked) or an RE2 regex, which runs in linear time. */
export async function matcher(
  query: string,
  options: { regex?: boolean | undefined; case_sensitive?: boolean | undefined },
): Promise<(line: string) => boolean> {
  if (!options.regex) {
    if (options.case_sensitive) return (line) => line.includes(query);
    const lower = query.toLowerCase();
    return (line) => line.toLowerCase().includes(lower);
  }
  re2 ??= load('re2js') as Re2;
  const { RE2JS } = re2;
  let compiled: InstanceType<Re2['RE2JS']>;
  try {
    compiled = RE2JS.compile(query, options.case_sensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    throw new InvalidInput(`\`query\` is not a valid RE2 regex: ${(error as Error).message}`, {
      hint: 'RE2 has no backreferences or lookaround; escape special characters, or search literally (regex: false)',
    });
  }
  return (line) => compiled.matcher(line).find();
}

export type SearchMatch = {
  /** 1-based line number. */
  line: number;
  text: string;
  before: string[];
  after: string[];
};

/** Matches from match number `skip` on, at most `max`, with context lines; and how many matched in all. */
export function searchLines(
  lines: readonly string[],
  test: (line: string) => boolean,
  options: { context: number; skip: number; max: number },
): { matches: SearchMatch[]; total: number } {
  const matches: SearchMatch[] = [];
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!test(lines[i] as string)) continue;
    total++;
    if (total <= options.skip || matches.length >= options.max) continue;
    matches.push({
      line: i + 1,
      text: lines[i] as string,
      before: lines.slice(Math.max(0, i - options.context), i),
      after: lines.slice(i + 1, i + 1 + options.context),
    });
  }
  return { matches, total };
}

/** Longest line returned in an answer; longer ones are cut and say so. */
export const MAX_LINE_CHARS = 2_000;

export function clip(line: string, max = MAX_LINE_CHARS): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [${line.length - max} more characters]`;
}
