import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode, Shape } from '@shipyard/core';
import { z } from 'zod';

export interface BadInputCase {
  /** `field: what`, or `arguments: what` for whole-object cases. */
  name: string;
  args: Record<string, unknown>;
  /**
   * `reject`: the input schema forbids these arguments, the server must answer `invalid_input`.
   * `either`: the schema allows them (odd but valid data); the server may succeed or refuse cleanly.
   */
  expect: 'reject' | 'either';
}

/** Strings that break naive code: empty, huge, unicode edge cases, SQL and FTS5 syntax. */
const BAD_STRINGS: ReadonlyArray<readonly [name: string, value: string]> = [
  ['empty string', ''],
  ['whitespace only', ' \t\n '],
  ['1 MB string', 'x'.repeat(1024 * 1024)],
  ['emoji', '🚢🔥👩🏽‍💻 ship it'],
  ['right-to-left text', 'مرحبا بالعالم שלום'],
  ['combining characters', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇'],
  ['NUL byte', 'a\u0000b'],
  ['lone surrogate', 'a\ud800b'],
  ['SQL injection (statement)', '"; DROP TABLE x; --'],
  ['SQL injection (tautology)', "' OR 1=1 --"],
  ['FTS syntax (open group)', 'foo AND ('],
  ['FTS syntax (unbalanced quote)', '"unbalanced'],
  ['FTS syntax (bare star)', '*'],
  ['FTS syntax (NEAR)', 'NEAR(a b)'],
  ['FTS syntax (column filter)', 'title:x'],
];

/** The raw bad strings, for fields, URIs or prompt arguments that `badInputs` does not cover. */
export const badValues: readonly string[] = BAD_STRINGS.map(([, value]) => value);

/** One value of each JSON type, used as a wrong-type value for fields that do not accept that type. */
const SAMPLES: Record<string, unknown> = {
  string: 'text',
  number: 42,
  boolean: true,
  object: { unexpected: 1 },
  array: ['text'],
  null: null,
};

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/** The JSON types a property accepts (`integer` implies nothing wider); empty means any value. */
function typesOf(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  if (schema.type) for (const t of [schema.type].flat()) types.add(t);
  for (const sub of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    for (const t of typesOf(sub)) types.add(t);
  if (types.size === 0) {
    for (const v of [...(schema.enum ?? []), ...('const' in schema ? [schema.const] : [])]) {
      types.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
    }
  }
  return types;
}

type Named = readonly [name: string, value: unknown];

/** One sample of each JSON type this field does not accept (42 is an integer too, so not wrong for one). */
function wrongSamples(types: Set<string>): Named[] {
  return Object.entries(SAMPLES).filter(
    ([type]) => !types.has(type) && !(type === 'number' && types.has('integer')),
  );
}

/** A property with the bounds of its anyOf/oneOf branches lifted to the top (a nullable field has two). */
function merged(schema: JsonSchema): JsonSchema {
  return Object.assign({}, ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map(merged), schema);
}

/** Values for one field, named; which ones apply depends on the field's JSON types and bounds. */
function fieldValues(property: JsonSchema, valid: unknown): Named[] {
  const types = typesOf(property);
  if (types.size === 0) return [];
  const schema = merged(property);
  const values: Named[] = wrongSamples(types).map(([type, sample]) => [`wrong type (${type})`, sample]);
  if (types.has('string')) {
    values.push(...BAD_STRINGS);
    const max = schema.maxLength;
    if (max !== undefined) values.push([`over maxLength ${max}`, 'x'.repeat(max + 1)]);
  }
  if (types.has('number') || types.has('integer')) {
    values.push(
      ['negative', -1],
      ['zero', 0],
      ['huge (1e308)', 1e308],
      ['unsafe integer', Number.MAX_SAFE_INTEGER + 2],
    );
    if (!types.has('number')) values.push(['float for integer', 1.5]);
    // The first value out of bounds, unless a case above covers it (zod's int() bounds are the safe range).
    const { minimum: min, maximum: max, exclusiveMinimum: xMin, exclusiveMaximum: xMax } = schema;
    const below = min !== undefined ? min - 1 : xMin;
    const above = max !== undefined ? max + 1 : xMax;
    if (below !== undefined && below >= Number.MIN_SAFE_INTEGER && below !== 0 && below !== -1) {
      values.push([`below minimum ${min ?? xMin}`, below]);
    }
    if (above !== undefined && above <= Number.MAX_SAFE_INTEGER)
      values.push([`above maximum ${max ?? xMax}`, above]);
  }
  if (types.has('array')) {
    const item = Array.isArray(valid) && valid.length > 0 ? valid[0] : sampleOf(schema.items ?? {});
    values.push(['10,000 items', Array(10_000).fill(item)]);
    const itemTypes = typesOf(schema.items ?? {});
    if (itemTypes.size > 0)
      values.push(['items of wrong types', wrongSamples(itemTypes).map(([, sample]) => sample)]);
    const max = schema.maxItems;
    if (max !== undefined) values.push([`over maxItems ${max}`, Array(max + 1).fill(item)]);
  }
  return values;
}

/** A plausible valid value for an array item (first enum value, lower bound, sample of its type). */
function sampleOf(schema: JsonSchema): unknown {
  if (schema.enum?.length) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = [...typesOf(schema)][0] ?? 'string';
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'string') return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  return SAMPLES[type];
}

/**
 * Bad and odd arguments for a tool with this input shape: per field, wrong JSON types, edge-case strings
 * (empty, 1 MB, unicode, SQL, FTS syntax), edge-case numbers, huge arrays; then an unknown key, `{}` and
 * all-null arguments. Each case starts from `valid` (one valid argument object) and changes one thing.
 * `expect` comes from parsing the case with the strict object schema, exactly as the core runtime does.
 */
export function badInputs(shape: Shape, valid: Record<string, unknown>): BadInputCase[] {
  const schema = z.strictObject(shape);
  const check = schema.safeParse(valid);
  if (!check.success)
    throw new Error(`badInputs: the valid arguments do not parse: ${z.prettifyError(check.error)}`);
  const json = z.toJSONSchema(z.object(shape), { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const expectOf = (args: Record<string, unknown>): BadInputCase['expect'] => {
    try {
      return schema.safeParse(args).success ? 'either' : 'reject';
    } catch {
      return 'either'; // a transform or async refinement threw; leave the verdict to the server
    }
  };
  const cases: BadInputCase[] = [];
  const add = (name: string, args: Record<string, unknown>) =>
    cases.push({ name, args, expect: expectOf(args) });
  for (const [field, property] of Object.entries(json.properties ?? {})) {
    for (const [what, value] of fieldValues(property, valid[field]))
      add(`${field}: ${what}`, { ...valid, [field]: value });
  }
  add('arguments: unknown extra key', { ...valid, unexpected_key: 'x' });
  if (json.required?.length) add('arguments: empty object', {});
  add('arguments: all fields null', Object.fromEntries(Object.keys(shape).map((key) => [key, null])));
  return cases;
}

export interface CheckBadInputsOptions {
  /** Error codes besides the defaults that this tool may answer (e.g. `forbidden`). */
  allowedCodes?: ErrorCode[];
  /** Per-call timeout; a call that hangs on odd input fails its case (default 10 s). */
  timeoutMs?: number;
}

export interface BadInputsSummary {
  cases: number;
  /** Cases the server refused with an acceptable error code. */
  rejected: number;
  /** Cases the server answered with success. */
  accepted: number;
}

/** Signs that an error leaks internals: a stack frame, the database engine, file paths. */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['a stack trace', / {4}at /],
  ['the database engine', /sqlite/i],
  ['a node_modules path', /\/node_modules\//],
  ['a source path', /\/src\//],
];
/** An error message longer than this floods the model's context (it probably echoes the input). */
const MAX_ERROR_CHARS = 4_000;

/**
 * Call `toolName` with every `badInputs` case and assert the server copes: the call resolves, `reject` cases
 * answer `invalid_input` (or an allowed code), `either` cases succeed or answer `invalid_input`, `not_found`,
 * `conflict` (or an allowed code) but never `internal`, no error leaks internals or echoes huge input, and
 * tools/list still answers afterwards. Throws one error listing every failing case.
 */
export async function checkBadInputs(
  client: Client,
  toolName: string,
  shape: Shape,
  valid: Record<string, unknown>,
  options: CheckBadInputsOptions = {},
): Promise<BadInputsSummary> {
  const cases = badInputs(shape, valid);
  const failures: string[] = [];
  let rejected = 0;
  for (const c of cases) {
    const outcome = await runCase(client, toolName, c, options);
    if (typeof outcome === 'string') failures.push(`- ${c.name} (expect ${c.expect}): ${outcome}`);
    else if (outcome.rejected) rejected++;
  }
  try {
    await client.listTools();
  } catch (error) {
    failures.push(`- afterwards, tools/list failed: ${(error as Error).message}`);
  }
  if (failures.length > 0) {
    throw new Error(
      `checkBadInputs(${toolName}): ${failures.length} of ${cases.length} cases failed\n${failures.join('\n')}`,
    );
  }
  return { cases: cases.length, rejected, accepted: cases.length - rejected };
}

/** How the server answered one case, or a string saying what it did wrong. */
async function runCase(
  client: Client,
  tool: string,
  c: BadInputCase,
  { allowedCodes = [], timeoutMs = 10_000 }: CheckBadInputsOptions,
): Promise<{ rejected: boolean } | string> {
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name: tool, arguments: c.args }, undefined, {
      timeout: timeoutMs,
    })) as CallToolResult;
  } catch (error) {
    const e = error as Error & { code?: unknown };
    return `the call failed at the protocol level (${String(e.code ?? 'no code')}): ${clip(e.message)}`;
  }
  if (!result.isError) {
    return c.expect === 'reject'
      ? 'succeeded, but the input schema forbids these arguments'
      : { rejected: false };
  }
  const text = (result.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  let code: unknown;
  try {
    code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return `the error text is not a JSON error body: ${clip(text)}`;
  }
  const codes: unknown[] = [
    'invalid_input',
    ...(c.expect === 'either' ? ['not_found', 'conflict'] : []),
    ...allowedCodes,
  ];
  if (!codes.includes(code))
    return `error code ${String(code)}, expected ${codes.join(' or ')}: ${clip(text)}`;
  const leak = LEAKS.find(([, pattern]) => pattern.test(text));
  if (leak) return `the error text leaks ${leak[0]}: ${clip(text)}`;
  if (text.length > MAX_ERROR_CHARS)
    return `the error text has ${text.length} chars (max ${MAX_ERROR_CHARS}): ${clip(text)}`;
  return { rejected: true };
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
