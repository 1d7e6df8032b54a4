import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from './logger.js';
import { isObject, type Refused, refusal } from './messages.js';

/** A line on stdin longer than this is answered -32600 and dropped (HTTP refuses a body over 4 MiB). */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

/** What a line on stdin is, as far as answering it goes. */
type Line = 'message' | 'blank' | 'response' | 'not-json' | 'not-a-message' | Refused;

/** Classify one line: JSON-RPC 2.0 asks for an answer to text that is not JSON and to an invalid request. */
export function classifyLine(line: string): Line {
  if (line.trim() === '') return 'blank';
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return 'not-json';
  }
  if (!isObject(message)) return 'not-a-message';
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
