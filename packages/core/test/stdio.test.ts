import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { checkedStdin, classifyLine, MAX_LINE_CHARS } from '../src/stdio.js';

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

  it('answers a refused request with its id when it has a usable one, and never a notification', () => {
    for (const [line, id, code, text] of lines.answered) {
      const kind = classifyLine(line);
      expect(kind, line).toMatchObject({ id, code, notification: false });
      expect((kind as { message: string }).message, line).toContain(text);
    }
    for (const line of lines.dropped) expect(classifyLine(line), line).toMatchObject({ notification: true });
  });

  it('answers through checkedStdin with the request id, and passes the next message', async () => {
    const answers: [number, unknown][] = [];
    const stream = checkedStdin(createLogger('test', { level: 'silent' }), (error, id) =>
      answers.push([error.code, id]),
    );
    const out: string[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk.toString()));
    stream.end(`${request({ id: 4, params: [] })}\n${request({ params: 1 })}\n${request({ id: 5 })}\n`);
    await new Promise((resolve) => stream.on('end', resolve));
    expect(answers).toEqual([[-32602, 4]]);
    expect(out.join('')).toBe(`${request({ id: 5 })}\n`);
  });
});

describe('checkedStdin', () => {
  it('passes messages on whole, however the chunks split them, and answers the rest', async () => {
    const answers: number[] = [];
    const stream = checkedStdin(createLogger('test', { level: 'silent' }), (error) =>
      answers.push(error.code),
    );
    const out: string[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk.toString()));
    const message = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"é"}}\n';
    const bytes = Buffer.from(`${message}oops\n${message}`);
    // Split inside the two-byte é and inside a line.
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    for (const part of [bytes.subarray(0, cut), bytes.subarray(cut, cut + 80), bytes.subarray(cut + 80)])
      stream.write(part);
    stream.end();
    await new Promise((resolve) => stream.on('end', resolve));
    expect(out.join('')).toBe(message + message);
    expect(answers).toEqual([-32700]);
  });
});

describe('checkedStdin and long lines', () => {
  it('answers a line over MAX_LINE_CHARS once, drops it, and passes the next message', async () => {
    const answers: { code: number; message: string }[] = [];
    const stream = checkedStdin(createLogger('test', { level: 'silent' }), (error) => answers.push(error));
    const out: string[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk.toString()));
    const message = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    // One line that grows past the limit over many chunks, then one that reaches it in its last chunk.
    const part = 'x'.repeat(64 * 1024);
    for (let i = 0; i <= MAX_LINE_CHARS / part.length; i++) stream.write(part);
    stream.write(`${part}\n${message}${'y'.repeat(MAX_LINE_CHARS - 10)}`);
    stream.write(`${'y'.repeat(20)}\n${message}`);
    // A line of exactly MAX_LINE_CHARS (its newline not counted) is read: not JSON, so -32700.
    stream.write(`${'z'.repeat(MAX_LINE_CHARS)}\r\n`);
    stream.end();
    await new Promise((resolve) => stream.on('end', resolve));
    expect(out.join('')).toBe(message + message);
    expect(answers).toEqual([
      { code: -32600, message: `Invalid Request: the line is longer than ${MAX_LINE_CHARS} characters` },
      { code: -32600, message: `Invalid Request: the line is longer than ${MAX_LINE_CHARS} characters` },
      { code: -32700, message: 'Parse error: the line is not JSON' },
    ]);
  });
});

describe('checkedStdin at the end of the stream', () => {
  it('passes on a last message that has no trailing newline', async () => {
    const answers: number[] = [];
    const stream = checkedStdin(createLogger('test', { level: 'silent' }), (error) =>
      answers.push(error.code),
    );
    const out: string[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk.toString()));
    const first = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    const last = '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"name":"é"}}';
    const bytes = Buffer.from(first + last);
    // Split inside the two-byte é of the last line, so the end of the stream finds it in two pieces.
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    stream.write(bytes.subarray(0, cut));
    stream.end(bytes.subarray(cut));
    await new Promise((resolve) => stream.on('end', resolve));
    expect(out.join('')).toBe(first + last);
    expect(answers).toEqual([]);
  });
});
