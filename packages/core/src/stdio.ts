import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from './logger.js';
import { isObject, parseJson, type Refused, refusal, TooDeep } from './messages.js';

/** A line on stdin longer than this is answered -32600 and dropped (HTTP refuses a body over 4 MiB). */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

/**
 * What a line on stdin is, as far as answering it goes: a message to pass on (parsed), or a line to answer
 * (JSON-RPC 2.0 asks for an answer to text that is not JSON and to an invalid request) or to drop.
 */
type Read = 'blank' | 'response' | 'not-json' | 'not-a-message' | Refused | { parsed: JSONRPCMessage };

/** Read one line of stdin (without its newline). */
export function readLine(line: string): Read {
  if (line.trim() === '') return 'blank';
  let message: unknown;
  try {
    message = parseJson(line);
  } catch (error) {
    if (error instanceof TooDeep)
      return { id: null, code: -32600, message: error.message, notification: false };
    return 'not-json';
  }
  if (!isObject(message)) return 'not-a-message';
  if (message.jsonrpc !== '2.0') return 'not-a-message';
  const parsed = message as unknown as JSONRPCMessage;
  if (typeof message.method === 'string') return refusal(message, message.method) ?? { parsed };
  // A response: passed on when the SDK can match it (an id), otherwise dropped, as a response is never answered.
  if ('result' in message || 'error' in message) {
    return typeof message.id === 'string' || typeof message.id === 'number' ? { parsed } : 'response';
  }
  return 'not-a-message';
}

/**
 * The stdio transport: newline-delimited JSON-RPC on stdin and stdout, as the SDK's, but each line is parsed
 * once and checked here (the SDK's transport would parse it again). Lines that are JSON-RPC messages are
 * passed on; a line that is not JSON is answered with -32700 and one that is JSON but not a message with
 * -32600 (id null, as JSON-RPC 2.0 asks when the id cannot be known), a request the SDK would refuse (see
 * {@link refusal}) under its own id, each with a warning on stderr, where the SDK would drop it without a
 * word. Blank lines and responses without an id go quietly, and so does the rest of a line past
 * MAX_LINE_CHARS after its answer. A last line without a newline is read when stdin ends. Only a refused
 * request's method or unknown member name is logged (cut and escaped); the line itself never is: it is the
 * host's data.
 */
export class StdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private started = false;
  private readonly decoder = new StringDecoder('utf8');
  /** The start of a line whose end has not come yet. */
  private pending = '';
  /** A line grew past MAX_LINE_CHARS: it was answered, and the rest of it is dropped up to its newline. */
  private skipping = false;
  /** Sends waiting for stdout to drain: one listener for them all, however many wait. */
  private waiting: (() => void)[] = [];

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('end', this.onend);
    this.stdin.on('error', this.onstdinerror);
    this.stdout.on('drain', this.ondrain);
    this.stdout.on('close', this.ondrain);
    this.stdout.on('error', this.onstdouterror);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('end', this.onend);
    this.stdin.off('error', this.onstdinerror);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    // The 'error' listener stays: a host that closed its end of stdout must not crash the process (EPIPE).
    this.stdout.off('drain', this.ondrain);
    this.stdout.off('close', this.ondrain);
    this.ondrain();
    this.pending = '';
    this.onclose?.();
  }

  /** Resolves once stdout has taken the message, or has closed (a host that stopped reading). */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`) || this.stdout.destroyed) resolve();
      else this.waiting.push(resolve);
    });
  }

  private readonly ondrain = () => {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  };

  private readonly onstdinerror = (error: Error) => this.onerror?.(error);

  private readonly onstdouterror = (error: Error) => {
    this.onerror?.(error);
    this.ondrain();
  };

  private readonly ondata = (chunk: Buffer) => {
    const text = this.decoder.write(chunk);
    // Only the new text is searched for newlines, so a long line costs time in proportion to its length.
    let from = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', from)) {
      const line = this.pending + text.slice(from, end);
      this.pending = '';
      from = end + 1;
      if (this.skipping) this.skipping = false;
      else this.line(line);
    }
    if (this.skipping) return;
    this.pending += text.slice(from);
    // As line() counts it: without the \r of a CRLF whose \n is still to come.
    if (this.pending.length - (this.pending.endsWith('\r') ? 1 : 0) > MAX_LINE_CHARS) {
      this.tooLong();
      this.pending = '';
      this.skipping = true;
    }
  };

  private readonly onend = () => {
    const last = this.pending + this.decoder.end();
    this.pending = '';
    if (!this.skipping && last !== '') this.line(last);
  };

  private tooLong() {
    this.log.warn(`answered -32600 to a line on stdin longer than ${MAX_LINE_CHARS} characters`);
    this.answer({
      code: -32600,
      message: `Invalid Request: the line is longer than ${MAX_LINE_CHARS} characters`,
    });
  }

  /** Answer with an error; id null when the request's id cannot be known (the SDK's type wants one). */
  private answer(error: { code: number; message: string }, id: string | number | null = null) {
    this.send({ jsonrpc: '2.0', id, error } as unknown as JSONRPCMessage).catch(() => {});
  }

  private line(text: string) {
    const content = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (content.length > MAX_LINE_CHARS) {
      this.tooLong();
      return;
    }
    const read = readLine(content);
    if (typeof read === 'object' && 'parsed' in read) {
      try {
        this.onmessage?.(read.parsed);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    } else if (typeof read === 'object') {
      const { id, code, message, notification } = read;
      this.log.warn(
        `${notification ? 'dropped a notification' : `answered ${code} to a request`}: ${message}`,
      );
      if (!notification) this.answer({ code, message }, id);
    } else if (read === 'not-json' || read === 'not-a-message') {
      const notJson = read === 'not-json';
      const code = notJson ? -32700 : -32600;
      this.log.warn(
        `answered ${code} to a line on stdin that is not ${notJson ? 'JSON' : 'a JSON-RPC message'}`,
      );
      this.answer(
        notJson
          ? { code, message: 'Parse error: the line is not JSON' }
          : { code, message: 'Invalid Request: the line is not a JSON-RPC 2.0 message' },
      );
    }
  }
}
