import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from './logger.js';
import { named } from './validation.js';

/** A line on stdin longer than this is answered -32600 and dropped (HTTP refuses a body over 4 MiB). */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

/** A request or notification the SDK would drop unanswered: its error, and the id to answer (null if none). */
export interface Refused {
  id: string | number | null;
  code: number;
  message: string;
  /** A notification is never answered, only logged. */
  notification: boolean;
}

/** What a line on stdin is, as far as answering it goes. */
type Line = 'message' | 'blank' | 'response' | 'not-json' | 'not-a-message' | Refused;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A JSON-RPC id or progress token as MCP has them: a string or an integer. */
const isToken = (value: unknown) => typeof value === 'string' || Number.isSafeInteger(value);
const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * What the SDK's message schema refuses in a request or notification, which its stdio transport then drops
 * without an answer (the client waits for ever): a key other than jsonrpc, id, method and params; an id that
 * is not a string or an integer; params, or params._meta, that are not an object; a progress token or a
 * related task of the wrong type. Plain checks, not the schema: this runs on every line.
 */
function refusal(message: Record<string, unknown>, method: string): Refused | undefined {
  const notification = !('id' in message);
  const idOk = notification || isToken(message.id);
  const refuse = (code: number, text: string): Refused => ({
    id: idOk && !notification ? (message.id as string | number) : null,
    code,
    message: text,
    notification,
  });
  for (const key in message) {
    if (!MESSAGE_KEYS.has(key)) return refuse(-32600, `Invalid Request: unknown member "${named(key)}"`);
  }
  if (!idOk) return refuse(-32600, 'Invalid Request: id must be a string or an integer');
  const { params } = message;
  if (params === undefined) return undefined;
  const invalid = (what: string) => refuse(-32602, `Invalid params for ${named(method)}: ${what}`);
  if (!isObject(params)) return invalid('params must be an object');
  const meta = params._meta;
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return invalid('_meta must be an object');
  if (meta.progressToken !== undefined && !isToken(meta.progressToken))
    return invalid('_meta.progressToken must be a string or an integer');
  const task = meta['io.modelcontextprotocol/related-task'];
  if (task !== undefined && !(isObject(task) && typeof task.taskId === 'string'))
    return invalid('_meta["io.modelcontextprotocol/related-task"] must be an object with a string taskId');
  return undefined;
}

/** Classify one line: JSON-RPC 2.0 asks for an answer to text that is not JSON and to an invalid request. */
export function classifyLine(line: string): Line {
  if (line.trim() === '') return 'blank';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not-json';
  }
  if (!isObject(value)) return 'not-a-message';
  const message = value;
  if (message.jsonrpc !== '2.0') return 'not-a-message';
  if (typeof message.method === 'string') return refusal(message, message.method) ?? 'message';
  // A response: passed on when the SDK can match it (an id), otherwise dropped, as a response is never answered.
  if ('result' in message || 'error' in message) {
    return typeof message.id === 'string' || typeof message.id === 'number' ? 'message' : 'response';
  }
  return 'not-a-message';
}

/**
 * stdin as the SDK's stdio transport should read it: lines that are JSON-RPC messages pass unchanged; a line
 * that is not JSON is answered with -32700 and one that is JSON but not a message with -32600 (id null, as
 * JSON-RPC 2.0 asks when the id cannot be known), a request the SDK would refuse (see {@link refusal}) under
 * its own id, each with a warning on stderr, where the SDK would drop it without a word. Blank lines and
 * responses without an id go quietly. Only a refused request's method or unknown member name is logged (cut
 * and escaped); the line itself never is: it is the host's data.
 */
export function checkedStdin(
  log: Logger,
  answer: (error: { code: number; message: string }, id?: string | number | null) => void,
) {
  const decoder = new StringDecoder('utf8');
  /** The start of a line whose end has not come yet. */
  let pending = '';
  /** A line grew past MAX_LINE_CHARS: it was answered, and the rest of it is dropped up to its newline. */
  let skipping = false;
  const tooLong = () => {
    log.warn(`answered -32600 to a line on stdin longer than ${MAX_LINE_CHARS} characters`);
    answer({
      code: -32600,
      message: `Invalid Request: the line is longer than ${MAX_LINE_CHARS} characters`,
    });
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = decoder.write(chunk);
      // Only the new text is searched for newlines, so a long line costs time in proportion to its length.
      let from = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', from)) {
        const line = pending + text.slice(from, end + 1);
        pending = '';
        from = end + 1;
        if (skipping) {
          skipping = false;
          continue;
        }
        const content = line.replace(/\r?\n$/, '');
        if (content.length > MAX_LINE_CHARS) {
          tooLong();
          continue;
        }
        const kind = classifyLine(content);
        if (kind === 'message') this.push(line);
        else if (typeof kind === 'object') {
          const { id, code, message, notification } = kind;
          log.warn(
            `${notification ? 'dropped a notification' : `answered ${code} to a request`}: ${message}`,
          );
          if (!notification) answer({ code, message }, id);
        } else if (kind === 'not-json' || kind === 'not-a-message') {
          const notJson = kind === 'not-json';
          const code = notJson ? -32700 : -32600;
          log.warn(
            `answered ${code} to a line on stdin that is not ${notJson ? 'JSON' : 'a JSON-RPC message'}`,
          );
          answer(
            notJson
              ? { code, message: 'Parse error: the line is not JSON' }
              : { code, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message' },
          );
        }
      }
      if (!skipping) {
        pending += text.slice(from);
        if (pending.length > MAX_LINE_CHARS) {
          tooLong();
          pending = '';
          skipping = true;
        }
      }
      done();
    },
    flush(done) {
      // A last line without a newline is passed on, for the transport to treat as it would have.
      done(null, skipping ? '' : pending + decoder.end());
    },
  });
}
