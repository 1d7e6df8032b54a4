import type { z } from 'zod';
import type { Shape } from './define.js';

/** Whether an answer is one zod would return unchanged; see {@link compileOutputCheck}. */
export type OutputCheck = (value: unknown) => boolean;

/**
 * A lean check of a tool's answers. The runtime checks each answer against the tool's zod output schema;
 * zod's parse walks its generic code (contexts, payloads, issue lists) for every field, and after other work
 * (another process, a large scan) has the CPU's caches, a page of 20 search results took about 120 µs to
 * parse. This check is built once from the same shape into a few small functions that only say yes or no.
 * An answer it passes is plain data that zod would return unchanged (no key the schema lacks, nothing to
 * fill in), and is sent as it is; an answer it refuses goes to zod, which strips unknown keys or says what is
 * wrong, as before.
 *
 * Undefined when the shape holds anything but plain objects, arrays, tuples, records with string keys,
 * strings without checks, numbers with bounds or a whole-number format, booleans, null, enums, literals,
 * unknown, and optional or nullable ones of those: refinements, overwrites, transforms, pipes, defaults and
 * read-only freezing change or check what a simple test cannot see, and a recursive shape is not followed.
 * Such a tool's answers are parsed by zod alone. A getter is read by this check and again by JSON.stringify:
 * one that answers otherwise the second time is not caught (handlers return data, not such objects).
 */
export function compileOutputCheck(shape: Shape): OutputCheck | undefined {
  return objectCheck(shape, 'strip', new Set());
}

type Schema = z.core.$ZodType;
interface Def {
  type: string;
  checks?: Schema[];
  format?: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  items?: Schema[];
  rest?: Schema | null;
  innerType?: Schema;
  keyType?: Schema;
  valueType?: Schema;
}
interface CheckDef {
  check: string;
  format?: string;
  value?: number;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  length?: number;
}

const defOf = (schema: Schema) => schema._zod.def as unknown as Def;
const checksOf = (def: Def) => (def.checks ?? []).map((check) => check._zod.def as unknown as CheckDef);

/**
 * A check of one schema, or undefined when it has a part zod may change or check otherwise. `open` holds the
 * schemas being built around this one: a recursive shape (a getter naming itself) is left to zod.
 */
function checkOf(schema: Schema, open: Set<Schema>): OutputCheck | undefined {
  const def = defOf(schema);
  // zod keeps its own marks (traits) of what a schema is: an exact optional refuses an explicit undefined.
  if ((schema._zod as unknown as { traits: Set<string> }).traits.has('$ZodExactOptional')) return undefined;
  // A refinement or an overwrite, on any kind: only the bounds of numbers and arrays are repeated here.
  if (def.checks?.length && def.type !== 'number' && def.type !== 'array') return undefined;
  if (open.has(schema)) return undefined;
  open.add(schema);
  try {
    return kindCheck(schema, def, open);
  } finally {
    open.delete(schema);
  }
}

function kindCheck(schema: Schema, def: Def, open: Set<Schema>): OutputCheck | undefined {
  switch (def.type) {
    case 'string':
      return def.format !== undefined ? undefined : (v) => typeof v === 'string';
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'null':
      return (v) => v === null;
    case 'unknown':
    case 'any':
      return () => true;
    case 'number':
      return numberCheck(def);
    case 'enum':
    case 'literal': {
      // zod's own set of the values it takes (a native enum's reverse names left out).
      const allowed = (schema._zod as unknown as { values?: Set<unknown> }).values;
      return allowed ? (v) => allowed.has(v) : undefined;
    }
    case 'optional':
    case 'nullable': {
      const inner = def.innerType && checkOf(def.innerType, open);
      if (!inner) return undefined;
      return def.type === 'optional' ? (v) => v === undefined || inner(v) : (v) => v === null || inner(v);
    }
    case 'array': {
      const element = def.element && checkOf(def.element, open);
      const length = lengthCheck(def);
      if (!element || !length) return undefined;
      return (v) => plainArray(v) && length(v.length) && everyItem(v, () => element);
    }
    case 'tuple': {
      const items = (def.items ?? []).map((item) => checkOf(item, open));
      const rest = def.rest ? checkOf(def.rest, open) : undefined;
      if (items.some((item) => item === undefined) || (def.rest && !rest)) return undefined;
      return (v) =>
        plainArray(v) &&
        (rest ? v.length >= items.length : v.length === items.length) &&
        everyItem(v, (i) => items[i] ?? (rest as OutputCheck));
    }
    case 'object': {
      const catchall = def.catchall && defOf(def.catchall).type;
      const extra =
        catchall === undefined
          ? 'strip'
          : catchall === 'never'
            ? 'strip' // a strict object: zod refuses another key, and says so
            : catchall === 'unknown' || catchall === 'any'
              ? 'keep'
              : undefined;
      return extra && objectCheck(def.shape ?? {}, extra, open);
    }
    case 'record': {
      const keys = def.keyType && defOf(def.keyType);
      const value = def.valueType && checkOf(def.valueType, open);
      if (keys?.type !== 'string' || keys.checks?.length || keys.format !== undefined || !value)
        return undefined;
      // zod refuses symbol keys in a record and drops an own `__proto__`; a function (an own `toJSON`, or a
      // `constructor`, which zod reads to tell a plain object) is not data.
      return (v) =>
        plainObject(v) &&
        Object.getOwnPropertySymbols(v).length === 0 &&
        Object.keys(v).every((key) => key !== '__proto__' && typeof v[key] !== 'function' && value(v[key]));
    }
    default:
      // readonly too: zod freezes what it returns, and refuses what cannot be frozen (a typed array).
      return undefined;
  }
}

/** Integers of each whole-number format zod has, and its bounds (zod's own, for the formats here). */
const INTEGER_RANGES: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2_147_483_648, 2_147_483_647],
  uint32: [0, 4_294_967_295],
};

function numberCheck(def: Def): OutputCheck | undefined {
  // z.int() is a format of its own; z.number().int() is one of the checks.
  const checks = [...(def.format ? [{ check: 'number_format', format: def.format }] : []), ...checksOf(def)];
  let min = Number.NEGATIVE_INFINITY;
  let max = Number.POSITIVE_INFINITY;
  let minIncluded = true;
  let maxIncluded = true;
  let integer = false;
  // Each bound narrows: at an equal value, an excluded bound wins over an included one.
  const above = (value: number, included: boolean) => {
    if (value > min) [min, minIncluded] = [value, included];
    else if (value === min) minIncluded &&= included;
  };
  const below = (value: number, included: boolean) => {
    if (value < max) [max, maxIncluded] = [value, included];
    else if (value === max) maxIncluded &&= included;
  };
  for (const check of checks) {
    if (check.check === 'number_format') {
      const range = check.format !== undefined ? INTEGER_RANGES[check.format] : undefined;
      if (!range) return undefined;
      integer = true;
      above(range[0], true);
      below(range[1], true);
    } else if (check.check === 'greater_than' && check.value !== undefined) {
      above(check.value, check.inclusive === true);
    } else if (check.check === 'less_than' && check.value !== undefined) {
      below(check.value, check.inclusive === true);
    } else {
      return undefined;
    }
  }
  return (v) =>
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!integer || Number.isInteger(v)) &&
    (minIncluded ? v >= min : v > min) &&
    (maxIncluded ? v <= max : v < max);
}

/** An array's length bounds, or undefined for a check this does not know. */
function lengthCheck(def: Def): ((length: number) => boolean) | undefined {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of checksOf(def)) {
    if (check.check === 'min_length' && check.minimum !== undefined) min = Math.max(min, check.minimum);
    else if (check.check === 'max_length' && check.maximum !== undefined) max = Math.min(max, check.maximum);
    else if (check.check === 'length_equals' && check.length !== undefined)
      [min, max] = [Math.max(min, check.length), Math.min(max, check.length)];
    else return undefined;
  }
  return (length) => length >= min && length <= max;
}

/** Every item of an array passes its check, and it has no holes (zod reads a hole as undefined). */
function everyItem(items: unknown[], checkAt: (i: number) => OutputCheck): boolean {
  for (let i = 0; i < items.length; i++) if (!(i in items) || !checkAt(i)(items[i])) return false;
  return true;
}

/** An array made by `[]`, without a `toJSON` of its own (JSON.stringify would write what that returns). */
function plainArray(value: unknown): value is unknown[] {
  return (
    Array.isArray(value) &&
    Object.getPrototypeOf(value) === Array.prototype &&
    !Object.hasOwn(value, 'toJSON')
  );
}

/**
 * An object made by `{}` or `Object.create(null)`: zod reads a class instance (its getters, its `toJSON`)
 * otherwise than JSON.stringify writes it.
 */
function plainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const isEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * An object of these fields, or undefined when a field has no check. `strip`: no other key (zod would drop
 * it, or refuse it under a strict object); `keep`: other keys pass as they are. A field left out passes where
 * zod lets it be left out (optional); one given is checked, undefined included.
 */
function objectCheck(
  shape: Record<string, Schema>,
  extra: 'strip' | 'keep',
  open: Set<Schema>,
): OutputCheck | undefined {
  // Fields no own key of a value stands for as zod reads them: symbols (skipped below) and `__proto__`.
  if (Object.getOwnPropertySymbols(shape).length > 0 || Object.hasOwn(shape, '__proto__')) return undefined;
  const fields: [string, OutputCheck, boolean][] = [];
  for (const [key, schema] of Object.entries(shape)) {
    const check = checkOf(schema, open);
    if (!check) return undefined;
    fields.push([key, check, (schema._zod as { optin?: string }).optin === 'optional']);
  }
  const known = new Set(Object.keys(shape));
  return (v) => {
    if (!plainObject(v)) return false;
    for (const [key, check, optional] of fields) {
      if (isEnumerable.call(v, key)) {
        const value = v[key];
        if (typeof value === 'function' || !check(value)) return false;
        // Not written by JSON.stringify, but read by zod: one not enumerable, or inherited (`constructor`).
      } else if (Object.hasOwn(v, key) || v[key] !== undefined || !optional) return false;
    }
    // Another key, `__proto__` included (zod drops an own one): zod strips it, or refuses it (strict).
    if (extra === 'strip') {
      for (const key in v) if (!known.has(key)) return false;
    } else {
      for (const key in v)
        if (!known.has(key) && (key === '__proto__' || typeof v[key] === 'function')) return false;
    }
    return true;
  };
}
