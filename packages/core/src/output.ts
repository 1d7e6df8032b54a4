import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { Shape } from './define.js';

/**
 * A compiled check of a tool's output. The runtime checks each answer against the tool's zod output schema;
 * parsing with zod walks its generic code for every field, and after other work (another process, a large
 * scan) has the CPU's caches, a page of 20 search results took about 120 µs to parse and 30 µs to check with
 * one function generated from the same schema as JSON Schema. An answer this check passes is the one zod
 * would return: it has no key the schema lacks, and nothing for zod to change. An answer it refuses goes to
 * zod, which strips unknown keys, fills defaults, or says what is wrong, as before.
 *
 * Undefined unless every part of the shape is one whose JSON Schema says exactly what zod checks and whose
 * value zod returns unchanged (SAME_TYPES, SAME_CHECKS): not refinements, transforms, pipes or trimming
 * (JSON Schema leaves them out or states one side), string lengths, formats and patterns (counted or
 * checked otherwise), multiples (floating-point remainders differ), unions (zod strips a value to the first
 * option it fits), exact optionals, records with other than string keys (zod wants every key of an enum).
 * Such a tool's answers are parsed by zod alone.
 */
export function compileOutputCheck(shape: Shape): ValidateFunction | undefined {
  let exact = true;
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(z.object(shape), {
      io: 'output',
      target: 'draft-7',
      unrepresentable: 'throw',
      override({ zodSchema }) {
        const { def, traits } = zodSchema._zod as unknown as { def: Def; traits: Set<string> };
        // An exact optional refuses an explicit undefined, which JSON Schema cannot tell from a missing key.
        if (!same(def) || traits.has('$ZodExactOptional')) exact = false;
      },
    }) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!exact) return undefined;
  delete schema.$schema;
  try {
    return ajv().compile(schema);
  } catch {
    return undefined;
  }
}

interface Def {
  type: string;
  /** A string format (email, uuid…) is a type of its own in zod; a number format (int) bounds a number. */
  format?: string;
  checks?: { _zod: { def: { check: string } } }[];
  keyType?: { _zod: { def: Def } };
}

const SAME_TYPES = new Set([
  ...['object', 'array', 'tuple', 'optional', 'nullable', 'default', 'readonly', 'record'],
  ...['string', 'number', 'boolean', 'null', 'enum', 'literal', 'unknown', 'any'],
]);
/** Bounds on numbers and on the length of arrays (strings count their length otherwise: see `same`). */
const SAME_CHECKS = new Set([
  ...['less_than', 'greater_than', 'number_format'],
  ...['max_length', 'min_length', 'length_equals'],
]);

function same(def: Def): boolean {
  if (!SAME_TYPES.has(def.type)) return false;
  if (def.format !== undefined && def.type !== 'number') return false;
  // JSON Schema counts a string's length in code points, zod in UTF-16 units (an emoji is one or two).
  if (def.type === 'string' && def.checks?.length) return false;
  if (def.checks?.some((check) => !SAME_CHECKS.has(check._zod.def.check))) return false;
  return (
    def.type !== 'record' || (def.keyType?._zod.def.type === 'string' && !def.keyType._zod.def.checks?.length)
  );
}

let instance: Ajv | undefined;
/**
 * One Ajv for every tool, built on the first call that needs it (about 4 ms). NaN and Infinity are not
 * numbers to it, as to zod; formats are never asked of it (see above).
 */
function ajv(): Ajv {
  instance ??= new Ajv({
    strictNumbers: true,
    strictSchema: false,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: false,
    validateSchema: false,
    meta: false,
    allErrors: false,
  });
  return instance;
}
