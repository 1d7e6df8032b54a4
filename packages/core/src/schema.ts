import { z } from 'zod';
import type { Shape, ToolDefinition } from './define.js';

type JsonObject = Record<string, unknown>;

const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;

/** JSON Schema of an object shape, trimmed of what only costs tokens ($schema, safe-integer bounds). */
export function shapeToJsonSchema(shape: Shape, io: 'input' | 'output'): JsonObject & { type: 'object' } {
  const objectSchema = io === 'input' ? z.strictObject(shape) : z.object(shape);
  const schema = z.toJSONSchema(objectSchema, { io, unrepresentable: 'any' }) as JsonObject;
  delete schema.$schema;
  if (io === 'output') delete schema.additionalProperties;
  return trim(schema) as JsonObject & { type: 'object' };
}

function trim(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(trim);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node as JsonObject)) {
    if (key === 'minimum' && value === SAFE_MIN) continue;
    if (key === 'maximum' && value === SAFE_MAX) continue;
    out[key] = trim(value);
  }
  return out;
}

/** The tools/list entry of a tool: what the runtime sends and what the linter measures. */
export function toolListing(tool: ToolDefinition) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: shapeToJsonSchema(tool.input, 'input'),
    outputSchema: shapeToJsonSchema(tool.output, 'output'),
    annotations: { ...tool.annotations },
  };
}
