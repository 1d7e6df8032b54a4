/**
 * What the SDK's JSON-RPC message schema refuses, checked before a message reaches it: over stdio the SDK
 * drops such a message without an answer (the client waits for ever), over HTTP it answers -32700 with id
 * null ("Parse error" for a body that is JSON). Plain checks, not the schema: they run on every message. A
 * test in test/stdio.test.ts holds them to the schema.
 */
import { named } from './validation.js';

/** A message the SDK would refuse: its error, and the id to answer with (null when there is none to use). */
export interface Refused {
  id: string | number | null;
  code: number;
  message: string;
  /** A notification is never answered over stdio, only logged. */
  notification: boolean;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** Half of a UTF-16 surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** A `\uD800`-`\uDFFF` escape in JSON text: the only way a lone surrogate gets into a parsed string. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Every string in a parsed JSON value with each lone surrogate replaced by U+FFFD, in place. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = wellFormed(value[i]);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const fixed = wellFormed(key) as string;
      const item = wellFormed(record[key]);
      if (fixed === key && item === record[key]) continue;
      if (fixed !== key) delete record[key];
      // defineProperty, not assignment: a key `__proto__` (an own property, as JSON.parse makes it) must
      // not become the object's prototype.
      Object.defineProperty(record, fixed, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return value;
}

/** Arrays and objects nest at most this deep in a message: MCP needs a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/** Refused before parsing: building a deeply nested value costs far more CPU than reading its text. */
export class TooDeep extends Error {
  constructor() {
    super(`Invalid Request: the message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** Whether JSON text nests arrays and objects deeper than `max`, read as text (brackets in strings skipped). */
export function nestedTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * JSON text parsed, with every string well-formed UTF-16. JSON may escape half of a surrogate pair alone
 * (`"\uD83D"`, an emoji cut in two by a client), and such a string changes on its way into SQLite and back
 * (one unit in, three U+FFFD out): a title that passed its length check would be stored three times as
 * long, and the same text sent again would never equal what was stored. Each lone half becomes U+FFFD, one
 * unit for one. Text with no surrogate escape (nearly all) is returned as JSON.parse gives it.
 */
export function parseJson(text: string): unknown {
  if (nestedTooDeep(text)) throw new TooDeep();
  const value: unknown = JSON.parse(text);
  return SURROGATE_ESCAPE.test(text) ? wellFormed(value) : value;
}

/** A JSON-RPC id or progress token as MCP has them: a string or an integer. */
const isToken = (value: unknown): value is string | number =>
  typeof value === 'string' || Number.isSafeInteger(value);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * What is wrong with a request or notification (a message with a `method`): a key other than jsonrpc, id,
 * method and params; an id that is not a string or an integer; params, or params._meta, that are not an
 * object; a progress token or a related task of the wrong type. Undefined when nothing is.
 */
export function refusal(message: Record<string, unknown>, method: string): Refused | undefined {
  const problem = problemOf(message, method);
  if (!problem) return undefined;
  const notification = !('id' in message);
  const id = !notification && isToken(message.id) ? message.id : null;
  return { id, code: problem[0], message: problem[1], notification };
}

const invalidParams = (method: string, what: string): [number, string] => [
  -32602,
  `Invalid params for ${named(method)}: ${what}`,
];

function problemOf(message: Record<string, unknown>, method: string): [number, string] | undefined {
  for (const key in message) {
    if (!MESSAGE_KEYS.has(key)) return [-32600, `Invalid Request: unknown member "${named(key)}"`];
  }
  if ('id' in message && !isToken(message.id))
    return [-32600, 'Invalid Request: id must be a string or an integer'];
  const { params } = message;
  if (params === undefined) return undefined;
  if (!isObject(params)) return invalidParams(method, 'params must be an object');
  const problem = metaProblem(params._meta);
  return problem ? invalidParams(method, problem) : undefined;
}

/** What is wrong with a `_meta` of params or of a result, as the SDK's schema reads it. */
function metaProblem(meta: unknown): string | undefined {
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return '_meta must be an object';
  if (meta.progressToken !== undefined && !isToken(meta.progressToken))
    return '_meta.progressToken must be a string or an integer';
  const task = meta['io.modelcontextprotocol/related-task'];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string'))
    return '_meta["io.modelcontextprotocol/related-task"] must be an object with a string taskId';
  return undefined;
}

const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

/**
 * Whether a message without a method is a response the SDK takes: an id and a result object, or an error
 * with an integer code and a string message (and an id, if any, that is a string or an integer).
 */
function isResponse(message: Record<string, unknown>): boolean {
  const only = (keys: Set<string>) => Object.keys(message).every((key) => keys.has(key));
  if ('result' in message) {
    const { result } = message;
    return only(RESULT_KEYS) && isToken(message.id) && isObject(result) && !metaProblem(result._meta);
  }
  const { error } = message;
  return (
    only(ERROR_KEYS) &&
    (!('id' in message) || isToken(message.id)) &&
    isObject(error) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string'
  );
}

const invalidRequest = (message: string): Refused => ({
  id: null,
  code: -32600,
  message: `Invalid Request: ${message}`,
  notification: false,
});

/**
 * What is wrong with an HTTP body (one message or a batch), as the first problem found; undefined when the
 * SDK would take it. A batch may not be empty, nor use one request id twice: the transport answers by id, so
 * the second would run and its answer be lost.
 */
export function bodyProblem(body: unknown): Refused | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return invalidRequest('an empty batch');
  const ids = new Set<unknown>();
  for (const message of messages) {
    if (!isObject(message) || message.jsonrpc !== '2.0')
      return invalidRequest('the body is not a JSON-RPC 2.0 message');
    if (typeof message.method === 'string') {
      const problem = refusal(message, message.method);
      if (problem) return problem;
      if (message.method === 'initialize' && !('id' in message))
        return invalidRequest('initialize must be a request, with an id');
      if ('id' in message) {
        if (ids.has(message.id))
          return invalidRequest(`id ${JSON.stringify(message.id)} is used twice in the batch`);
        ids.add(message.id);
      }
    } else if (!('result' in message || 'error' in message)) {
      return invalidRequest('the body is not a JSON-RPC 2.0 message');
    } else if (!isResponse(message)) {
      return invalidRequest(
        'a response needs an id and a result object, or an error with an integer code and a string message',
      );
    }
  }
  return undefined;
}
