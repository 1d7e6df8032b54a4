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
  const meta = params._meta;
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return invalidParams(method, '_meta must be an object');
  if (meta.progressToken !== undefined && !isToken(meta.progressToken))
    return invalidParams(method, '_meta.progressToken must be a string or an integer');
  const task = meta['io.modelcontextprotocol/related-task'];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string'))
    return invalidParams(
      method,
      '_meta["io.modelcontextprotocol/related-task"] must be an object with a string taskId',
    );
  return undefined;
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
    }
  }
  return undefined;
}
