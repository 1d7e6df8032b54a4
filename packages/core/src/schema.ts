import { z } from 'zod';
import type { Shape, ToolAnnotations, ToolDefinition } from './define.js';

type JsonObject = Record<string, unknown>;

const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** JSON Schema of an object shape, trimmed of what only costs tokens ($schema, safe-integer bounds). */
export function shapeToJsonSchema(shape: Shape, io: 'input' | 'output'): JsonObject & { type: 'object' } {
  // Input is validated strictly at run time (unknown keys are rejected with a message listing the allowed
  // ones), so the listing leaves out `additionalProperties: false`: it would cost tokens in every tool.
  const schema = z.toJSONSchema(z.object(shape), { io, unrepresentable: 'any' }) as JsonObject;
  delete schema.$schema;
  return trim(schema, io) as JsonObject & { type: 'object' };
}

/** The JSON Schema key {@link listedByType} marks a field with. */
const BY_TYPE = 'x-shipyard-listed-by-type';

/**
 * An output field listed by its type alone (an array of objects, an object), without the shape of its items:
 * for a secondary list whose items a model reads in the answer itself. Still validated in full at run time,
 * and the listed schema stays true of every value. On an input field it changes nothing.
 */
export const listedByType = <T extends z.ZodType>(schema: T): T => schema.meta({ [BY_TYPE]: true });

/** The JSON Schema key {@link listedWithoutBounds} marks a field with. */
const NO_BOUNDS = 'x-shipyard-listed-without-bounds';

/** The keywords {@link listedWithoutBounds} leaves out of the listing. */
const BOUNDS = new Set(['minLength', 'maxLength', 'pattern', 'minItems', 'maxItems']);

/**
 * An input field listed without its length bounds and pattern: for a value a model copies from an answer or
 * writes in a shape its description states (a key, a cursor, a YYYY-MM-DD date), where the bound guards the
 * server and tells the model nothing. Still validated in full at run time, and the linter checks the bound
 * there. On an output field it changes nothing.
 */
export const listedWithoutBounds = <T extends z.ZodType>(schema: T): T => schema.meta({ [NO_BOUNDS]: true });

/**
 * JSON Schema of an input shape as the runtime validates it, bounds the listing leaves out included: what the
 * linter checks for a bound on every string and list.
 */
export function validatedInputSchema(shape: Shape): JsonObject {
  return z.toJSONSchema(z.object(shape), { io: 'input', unrepresentable: 'any' }) as JsonObject;
}

/** A JSON Schema with only its type, and its items' type: a looser schema every value of it still meets. */
function byType(node: JsonObject): JsonObject {
  const { type, items } = node;
  const item = items !== null && typeof items === 'object' && !Array.isArray(items);
  return { type, ...(item ? { items: byType(items as JsonObject) } : {}) };
}

function trim(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => trim(item, io));
  if (node === null || typeof node !== 'object') return node;
  if (io === 'output' && (node as JsonObject)[BY_TYPE] === true) return byType(node as JsonObject);
  const nullable = collapseNullable(node as JsonObject);
  if (nullable) return trim(nullable, io);
  const unbounded = io === 'input' && (node as JsonObject)[NO_BOUNDS] === true;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node as JsonObject)) {
    // The keys of `properties` are field names, not keywords: a field called `required` stays.
    if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, trim(field, io)]));
      continue;
    }
    if (key === BY_TYPE || key === NO_BOUNDS) continue;
    if (unbounded && BOUNDS.has(key)) continue;
    if (key === 'minimum' && value === SAFE_MIN) continue;
    if (key === 'maximum' && value === SAFE_MAX) continue;
    // Core strips unknown keys from outputs before sending, so these only cost tokens there.
    if (io === 'output' && key === 'propertyNames') continue;
    if (key === 'additionalProperties' && isEmptyOrFalse(value)) continue;
    // The output schema tells a model which fields to expect and their types; the runtime validates the
    // real output against the zod schema, so listing `required` would only add tokens to every tool.
    if (io === 'output' && key === 'required') continue;
    out[key] = trim(value, io);
  }
  return out;
}

/** `{ anyOf: [{ type: 'string', … }, { type: 'null' }] }` says the same as `{ type: ['string', 'null'], … }`. */
function collapseNullable(node: JsonObject): JsonObject | undefined {
  const { anyOf: options, ...rest } = node;
  if (!Array.isArray(options) || options.length !== 2) return undefined;
  const [first, second] = options as JsonObject[];
  const value = second?.type === 'null' && Object.keys(second).length === 1 ? first : undefined;
  if (!value || typeof value.type !== 'string' || value.enum !== undefined) return undefined;
  return { ...value, ...rest, type: [value.type, 'null'] };
}

function isEmptyOrFalse(value: unknown): boolean {
  return value === false || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

/** The tools/list entry of a tool: what the runtime sends and what the linter measures. */
export function toolListing(tool: ToolDefinition) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: shapeToJsonSchema(tool.input, 'input'),
    outputSchema: shapeToJsonSchema(tool.output, 'output'),
    annotations: listedHints(tool.annotations),
  };
}

/**
 * The hints a host could not infer from the MCP defaults (readOnlyHint false, idempotentHint false): a
 * read-only tool leaves out destructiveHint and idempotentHint, which mean nothing there, and a write tool
 * idempotentHint when false. destructiveHint (on a write tool) and openWorldHint stay explicit, so a host
 * that ignores the defaults never takes a destructive or open-world tool for a safe one.
 */
export function listedHints(hints: Partial<ToolAnnotations> | undefined): Partial<ToolAnnotations> {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = hints ?? {};
  const listed = readOnlyHint
    ? { readOnlyHint, openWorldHint }
    : { destructiveHint, ...(idempotentHint ? { idempotentHint } : {}), openWorldHint };
  // A definition the linter is checking may lack some (it reports them): those are left out here.
  return Object.fromEntries(Object.entries(listed).filter(([, value]) => value !== undefined));
}
