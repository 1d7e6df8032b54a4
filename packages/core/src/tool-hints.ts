import { z } from 'zod';
import type { AnyTool } from './define.js';
import { shapeToJsonSchema } from './schema.js';
import { describeIssues, type Suggestion, suggestArguments } from './validation.js';

/** A definition's `elsewhere` may name only arguments the tool does not take. */
export function checkElsewhere(def: AnyTool): void {
  const taken = Object.keys(def.elsewhere ?? {}).filter((key) => Object.hasOwn(def.input, key));
  if (taken.length > 0) {
    throw new Error(
      `Tool ${def.name}: elsewhere names ${taken.map((key) => `\`${key}\``).join(', ')}, which it takes; ` +
        'elsewhere is for arguments the tool does not take',
    );
  }
}

/**
 * Arguments a caller may leave out: those the input's JSON Schema does not require. Read from the schema,
 * not probed by parsing undefined, which would run the fields' transforms.
 */
export function optionalKeys(input: Record<string, z.ZodType>): string[] {
  const required = new Set((shapeToJsonSchema(input, 'input').required as string[] | undefined) ?? []);
  return Object.keys(input).filter((key) => !required.has(key));
}

/** A field's description, looked up through the wrappers that carry none of their own (`.optional()`). */
export function describedAs(schema: z.ZodType | undefined): string {
  for (let at = schema, depth = 0; at && depth < 10; at = unwrapped(at), depth++) {
    if (at.description) return at.description;
  }
  return '';
}

/** Wrappers that carry no description of their own. */
const WRAPPERS = [
  z.ZodOptional,
  z.ZodExactOptional,
  z.ZodNullable,
  z.ZodDefault,
  z.ZodPrefault,
  z.ZodNonOptional,
  z.ZodCatch,
  z.ZodReadonly,
];

/** The schema a wrapper (optional, nullable, default…) wraps; undefined for any other. */
function unwrapped(schema: z.ZodType): z.ZodType | undefined {
  if (!WRAPPERS.some((wrapper) => schema instanceof wrapper)) return undefined;
  return (schema as unknown as { unwrap(): z.ZodType }).unwrap();
}

/** Who may answer the question "which tool takes this argument": the tools this session offers. */
export interface Offered {
  /** The definitions of the offered tools. */
  offered(): Iterable<AnyTool>;
  /** Every tool of the definition, offered or not. */
  all: readonly AnyTool[];
}

/**
 * The message and hint for arguments a tool refused: what is wrong with each, "did you mean" for near names
 * and aliases, and the other tools that take an argument this one does not.
 */
export function refusal(
  tool: AnyTool,
  optional: string[],
  issues: readonly z.core.$ZodIssue[],
  offered: Offered,
): { problems: string; hint: string | undefined } {
  const keys = Object.keys(tool.input);
  const meant = suggestArguments(issues, keys, tool.aliases, tool.elsewhere);
  const problems = describeIssues(issues, keys, {
    optionalKeys: optional,
    // Those whose description offers "none" as a value (see DescribeOptions): looked up on a refusal only.
    noneKeys: optional.filter((key) => describedAs(tool.input[key]).includes('"none"')),
    meant,
  });
  return { problems, hint: elsewhere(tool, issues, meant, offered) };
}

/**
 * For arguments a tool does not take and that mean none it takes (`meant`), the offered tools that take
 * them (`status` given to an update tool names the tool that changes status), or undefined when no unknown
 * argument has one. An argument the message already pairs with a missing one (`comment` for a comment
 * tool's `body`) names no other tool: the hint would send the model to a tool that does something else.
 */
function elsewhere(
  called: AnyTool,
  issues: readonly z.core.$ZodIssue[],
  meant: ReadonlyMap<string, Suggestion>,
  offered: Offered,
): string | undefined {
  const unknown = issues.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys : []));
  /** The definition's own `elsewhere` notes, left out where one names a tool this session does not offer. */
  const told: string[] = [];
  const notes = unknown.flatMap((key) => {
    if (meant.has(key)) return [];
    // In any case, as aliases are looked up (`Comment` is `comment`).
    const lower = key.toLowerCase();
    if (called.elsewhere && Object.hasOwn(called.elsewhere, lower)) {
      const note = called.elsewhere[lower] as string;
      if (!namesHiddenTool(note, offered)) told.push(note);
      return [];
    }
    const named = takers(called, key, offered);
    return named.length > 0 ? [`\`${key}\` is an argument of ${named.map((t) => t.name).join(', ')}`] : [];
  });
  const hints = [...(notes.length > 0 ? [`${notes.join('; ')}: call that tool for it`] : []), ...told];
  return hints.length > 0 ? hints.join('. ') : undefined;
}

/** Whether `text` names, as a word, a tool of the definition this session does not offer. */
function namesHiddenTool(text: string, offered: Offered): boolean {
  const words = new Set(text.match(/\w+/g));
  const shown = new Set([...offered.offered()].map((def) => def.name));
  return offered.all.some((tool) => !shown.has(tool.name) && words.has(tool.name));
}

/**
 * The offered tools other than `called` that take argument `key`: those that change data like it does (or
 * only read, like it), or when none does, the others; but a tool that only reads names no tool that
 * changes data (a filter it lacks is not a reason to change a ticket).
 */
function takers(called: AnyTool, key: string, offered: Offered): AnyTool[] {
  const reads = (def: AnyTool) => def.annotations?.readOnlyHint === true;
  const all = [...offered.offered()].filter((def) => def !== called && Object.hasOwn(def.input, key));
  const alike = all.filter((def) => reads(def) === reads(called));
  return alike.length > 0 || reads(called) ? alike : all;
}
