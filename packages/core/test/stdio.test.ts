import { PassThrough, Writable } from 'node:stream';
import { isJSONRPCRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { nestedTooDeep, parseJson } from '../src/messages.js';
import { MAX_LINE_CHARS, readLine, StdioTransport } from '../src/stdio.js';

/** What the transport does with a line: pass it on ('message'), answer it or drop it. */
function classifyLine(line: string) {
  const read = readLine(line);
  return typeof read === 'object' && 'parsed' in read ? 'message' : read;
}

/**
 * Feed stdin to a StdioTransport through `write` (which ends it), and collect the messages it passes on (as
 * JSON lines) and the errors it answers on stdout.
 */
async function transported(write: (stdin: PassThrough) => void) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioTransport(stdin, stdout, createLogger('test', { level: 'silent' }));
  const passed: string[] = [];
  transport.onmessage = (message) => passed.push(`${JSON.stringify(message)}\n`);
  await transport.start();
  const ended = new Promise((resolve) => stdin.on('end', resolve));
  write(stdin);
  await ended;
  await transport.close();
  const answers = String(stdout.read() ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: unknown; error: { code: number; message: string } });
  return { passed: passed.join(''), answers };
}

describe('classifyLine', () => {
  it('tells messages from lines to answer and lines to drop', () => {
    expect(classifyLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toBe('message');
    expect(classifyLine('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toBe('message');
    expect(classifyLine('{"jsonrpc":"2.0","id":"a","result":{}}')).toBe('message');
    expect(classifyLine('{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}')).toBe('response');
    expect(classifyLine('  ')).toBe('blank');
    expect(classifyLine('{not json')).toBe('not-json');
    for (const line of ['[1]', '"text"', '{"id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1}'])
      expect(classifyLine(line), line).toBe('not-a-message');
  });
});

describe('classifyLine and what the SDK drops', () => {
  const request = (extra: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: '2.0', method: 'ping', ...extra });
  const lines = {
    fine: [
      request({ id: 1 }),
      request({ id: 'a', params: {} }),
      request({ id: 2, params: { _meta: { progressToken: 'p' }, name: 'x' } }),
      request({ id: 3, params: { _meta: { progressToken: 7, other: [1] } } }),
      request({ id: 4, params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } }),
      request({}),
      request({ params: { _meta: {} } }),
    ],
    answered: [
      [request({ id: 4, params: ['get_ticket', { key: 'SHIP-1' }] }), 4, -32602, 'params must be an object'],
      [request({ id: 5, params: null }), 5, -32602, 'params must be an object'],
      [request({ id: 6, params: 'x' }), 6, -32602, 'params must be an object'],
      [request({ id: 7, params: { _meta: 5 } }), 7, -32602, '_meta must be an object'],
      [request({ id: 8, params: { _meta: { progressToken: {} } } }), 8, -32602, 'progressToken'],
      [request({ id: 8, params: { _meta: { progressToken: 1.5 } } }), 8, -32602, 'progressToken'],
      [
        request({ id: 9, params: { _meta: { 'io.modelcontextprotocol/related-task': 1 } } }),
        9,
        -32602,
        'taskId',
      ],
      [request({ id: null }), null, -32600, 'id must be a string or an integer'],
      [request({ id: true }), null, -32600, 'id must be a string or an integer'],
      [request({ id: 1.5 }), null, -32600, 'id must be a string or an integer'],
      [request({ id: { a: 1 } }), null, -32600, 'id must be a string or an integer'],
      [request({ id: [1] }), null, -32600, 'id must be a string or an integer'],
      [request({ id: 10, extra: 1 }), 10, -32600, 'unknown member "extra"'],
      // What the client sent is named back escaped (a bidi override, a line break).
      [request({ id: 11, 'x\u202e\n': 1 }), 11, -32600, 'unknown member "x\\u202e\\n"'],
    ] as const,
    dropped: [request({ params: [] }), request({ params: { _meta: 'x' } }), request({ extra: true })],
  };

  it('passes exactly the requests and notifications the SDK accepts', () => {
    for (const line of [...lines.fine, ...lines.answered.map(([line]) => line), ...lines.dropped]) {
      const accepted = JSONRPCMessageSchema.safeParse(JSON.parse(line)).success;
      expect(classifyLine(line) === 'message', line).toBe(accepted);
    }
  });

  it('passes on a message with a string method and an id only when it is a request to the SDK too', () => {
    // A message the transport passes on with a string method and an id is one the SDK dispatches as a request.
    const responses = [
      '{"jsonrpc":"2.0","id":7,"method":5,"result":{}}',
      '{"jsonrpc":"2.0","id":1.5,"method":null,"error":{"code":1,"message":"x"}}',
      '{"jsonrpc":"2.0","id":1,"method":[],"result":{}}',
      '{"jsonrpc":"2.0","id":2,"method":"ping","result":{}}',
    ];
    const all = [...lines.fine, ...lines.answered.map(([line]) => line), ...lines.dropped, ...responses];
    const passed = all.filter((line) => {
      const message = JSON.parse(line);
      return classifyLine(line) === 'message' && 'id' in message && typeof message.method === 'string';
    });
    expect(passed.length).toBeGreaterThan(3);
    for (const line of passed) expect(isJSONRPCRequest(JSON.parse(line)), line).toBe(true);
  });

  it('answers a refused request with its id when it has a usable one, and never a notification', () => {
    for (const [line, id, code, text] of lines.answered) {
      const kind = classifyLine(line);
      expect(kind, line).toMatchObject({ id, code, notification: false });
      expect((kind as { message: string }).message, line).toContain(text);
    }
    for (const line of lines.dropped) expect(classifyLine(line), line).toMatchObject({ notification: true });
  });

  it('answers through the transport with the request id, and passes the next message', async () => {
    const { passed, answers } = await transported((stdin) =>
      stdin.end(`${request({ id: 4, params: [] })}\n${request({ params: 1 })}\n${request({ id: 5 })}\n`),
    );
    expect(answers.map((answer) => [answer.error.code, answer.id])).toEqual([[-32602, 4]]);
    expect(passed).toBe(`${request({ id: 5 })}\n`);
  });
});

describe('nesting', () => {
  it('refuses a line nested deeper than 64 levels before parsing it, and passes the next message', async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' });
    const { passed, answers } = await transported((stdin) => stdin.end(`${deep}\n${ping}\n`));
    expect(answers).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    ]);
    expect(answers[0]?.error.message).toMatch(/deeper than 64/);
    expect(passed).toBe(`${ping}\n`);
  });

  it('counts brackets outside strings only', () => {
    expect(nestedTooDeep(`{"a":"${'['.repeat(1_000)}"}`)).toBe(false);
    expect(nestedTooDeep(`{"a":"\\"}`)).toBe(false);
    expect(nestedTooDeep(`{"a":"\\"${'['.repeat(1_000)}"}`)).toBe(false);
    expect(nestedTooDeep(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe(false);
    expect(nestedTooDeep(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe(true);
    expect(nestedTooDeep(`[${'{"a":'.repeat(65)}1${'}'.repeat(65)}]`)).toBe(true);
  });
});

describe('StdioTransport', () => {
  it('passes messages on whole, however the chunks split them, and answers the rest', async () => {
    const message = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"é"}}\n';
    const { passed, answers } = await transported((stdin) => {
      const bytes = Buffer.from(`${message}oops\n${message}`);
      // Split inside the two-byte é and inside a line.
      const cut = bytes.indexOf(Buffer.from('é')) + 1;
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut, cut + 80), bytes.subarray(cut + 80)])
        stdin.write(part);
      stdin.end();
    });
    expect(passed).toBe(message + message);
    expect(answers.map((answer) => answer.error.code)).toEqual([-32700]);
  });
});

describe('StdioTransport and long lines', () => {
  it('answers a line over MAX_LINE_CHARS once, drops it, and passes the next message', async () => {
    const message = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    const { passed, answers } = await transported((stdin) => {
      // One line that grows past the limit over many chunks, then one that reaches it in its last chunk.
      const part = 'x'.repeat(64 * 1024);
      for (let i = 0; i <= MAX_LINE_CHARS / part.length; i++) stdin.write(part);
      stdin.write(`${part}\n${message}${'y'.repeat(MAX_LINE_CHARS - 10)}`);
      stdin.write(`${'y'.repeat(20)}\n${message}`);
      // A line of exactly MAX_LINE_CHARS (its newline not counted) is read: not JSON, so -32700.
      stdin.write(`${'z'.repeat(MAX_LINE_CHARS)}\r\n`);
      stdin.end();
    });
    expect(passed).toBe(message + message);
    expect(answers.map((answer) => answer.error)).toEqual([
      { code: -32600, message: `Invalid Request: the line is longer than ${MAX_LINE_CHARS} characters` },
      { code: -32600, message: `Invalid Request: the line is longer than ${MAX_LINE_CHARS} characters` },
      { code: -32700, message: 'Parse error: the line is not JSON' },
    ]);
    expect(answers.every((answer) => answer.id === null)).toBe(true);
  });
});

describe('StdioTransport at the end of the stream', () => {
  it('reads a last message that has no trailing newline', async () => {
    const first = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    const last = '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"name":"é"}}';
    const { passed, answers } = await transported((stdin) => {
      const bytes = Buffer.from(first + last);
      // Split inside the two-byte é of the last line, so the end of the stream finds it in two pieces.
      const cut = bytes.indexOf(Buffer.from('é')) + 1;
      stdin.write(bytes.subarray(0, cut));
      stdin.end(bytes.subarray(cut));
    });
    expect(passed).toBe(`${first + last}\n`);
    expect(answers).toEqual([]);
  });
});

describe('StdioTransport and its reader', () => {
  it('reports a message the reader throws on, and reads on', async () => {
    const stdin = new PassThrough();
    const transport = new StdioTransport(stdin, new PassThrough(), createLogger('test', { level: 'silent' }));
    const errors: string[] = [];
    const ids: unknown[] = [];
    transport.onerror = (error) => errors.push(error.message);
    transport.onmessage = (message) => {
      ids.push((message as { id: unknown }).id);
      if (ids.length === 1) throw new Error('first one');
    };
    await transport.start();
    const ended = new Promise((resolve) => stdin.on('end', resolve));
    stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await ended;
    expect(ids).toEqual([1, 2]);
    expect(errors).toEqual(['first one']);
  });
});

describe('StdioTransport and a CRLF split at the limit', () => {
  it('reads a line of exactly MAX_LINE_CHARS whose \\r and \\n come in different chunks', async () => {
    const head = '{"jsonrpc":"2.0","id":5,"method":"ping"';
    const line = `${head}${' '.repeat(MAX_LINE_CHARS - head.length - 1)}}`;
    const { passed, answers } = await transported((stdin) => {
      stdin.write(`${line}\r`);
      stdin.end('\n');
    });
    expect(answers).toEqual([]);
    expect(JSON.parse(passed)).toEqual({ jsonrpc: '2.0', id: 5, method: 'ping' });
  });
});

describe('StdioTransport and its stdout', () => {
  const transport = (stdout: Writable) =>
    new StdioTransport(new PassThrough(), stdout, createLogger('test', { level: 'silent' }));
  const message = { jsonrpc: '2.0', id: 1, result: {} } as const;

  it('waits for a slow reader with one drain listener, however many answers wait', async () => {
    const written: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stdout = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        gate.then(() => done());
      },
    });
    const sender = transport(stdout);
    await sender.start();
    const sends = Array.from({ length: 50 }, () => sender.send(message));
    expect(stdout.listenerCount('drain')).toBe(1);
    release();
    await Promise.all(sends);
    expect(written).toHaveLength(50);
  });

  it('reports a stdout that fails (a host that closed its end) instead of crashing, and settles sends', async () => {
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const sender = transport(stdout);
    const errors: string[] = [];
    sender.onerror = (error) => errors.push(error.message);
    await sender.start();
    await Promise.all([sender.send(message), sender.send(message)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toContain('write EPIPE');
  });
});

describe('parseJson and lone surrogates', () => {
  it('replaces each half of a surrogate pair sent alone with U+FFFD, in keys and values at any depth', () => {
    const parsed = parseJson(
      '{"a":"cut \\uD83D","b":["\\uDE00 x",{"\\uD83Dk":"\\uD83D\\uDE00 whole"}],"c":1,"d":null}',
    );
    expect(parsed).toEqual({
      a: 'cut \uFFFD',
      b: ['\uFFFD x', { '\uFFFDk': '\u{1F600} whole' }],
      c: 1,
      d: null,
    });
  });

  it('keeps a pair escaped as two halves, and text without escapes, as JSON.parse gives them', () => {
    expect(parseJson('"\\uD83D\\uDE00"')).toBe('\u{1F600}');
    const text = '{"title":"Crash \u{1F600} on start","n":[1,2]}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('leaves a __proto__ key an own property, never the prototype', () => {
    const parsed = parseJson('{"__proto__":{"x":"\\uD83D"},"y":"\\uDE00"}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(parsed)).toEqual(['__proto__', 'y']);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toEqual({ x: '\uFFFD' });
    expect(parsed.y).toBe('\uFFFD');
  });

  it('is what the transport passes on: a lone half reaches the server as U+FFFD', async () => {
    const line =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"s":"a\\uD83D"}}}';
    const { passed } = await transported((stdin) => stdin.end(`${line}\n`));
    expect(JSON.parse(passed)).toMatchObject({ params: { arguments: { s: 'a\uFFFD' } } });
  });
});
