import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from './logger.js';

/** What a line on stdin is, as far as answering it goes. */
type Line = 'message' | 'blank' | 'response' | 'not-json' | 'not-a-message';

/** Classify one line: JSON-RPC 2.0 asks for an answer to text that is not JSON and to an invalid request. */
export function classifyLine(line: string): Line {
  if (line.trim() === '') return 'blank';
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not-json';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not-a-message';
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return 'not-a-message';
  if (typeof message.method === 'string') return 'message';
  // A response: passed on when the SDK can match it (an id), otherwise dropped, as a response is never answered.
  if ('result' in message || 'error' in message) {
    return typeof message.id === 'string' || typeof message.id === 'number' ? 'message' : 'response';
  }
  return 'not-a-message';
}

/**
 * stdin as the SDK's stdio transport should read it: lines that are JSON-RPC messages pass unchanged; a line
 * that is not JSON is answered with -32700 and one that is JSON but not a message with -32600 (id null, as
 * JSON-RPC 2.0 asks when the id cannot be known), each with a warning on stderr, where the SDK would drop it
 * without a word. Blank lines and responses without an id go quietly. The line itself is never logged: it
 * is the host's data.
 */
export function checkedStdin(log: Logger, answer: (error: { code: number; message: string }) => void) {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += decoder.write(chunk);
      let end = pending.indexOf('\n');
      while (end !== -1) {
        const line = pending.slice(0, end + 1);
        pending = pending.slice(end + 1);
        const kind = classifyLine(line.replace(/\r?\n$/, ''));
        if (kind === 'message') this.push(line);
        else if (kind === 'not-json' || kind === 'not-a-message') {
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
        end = pending.indexOf('\n');
      }
      done();
    },
    flush(done) {
      // A last line without a newline is passed on, for the transport to treat as it would have.
      done(null, pending + decoder.end());
    },
  });
}
