import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineResource,
  defineServer,
  defineTool,
  type ServerDefinition,
  withImages,
  z,
} from '../src/index.js';
import { connect, expectRpcError, expectToolError, expectToolOk, type Harness } from './helpers.js';

const INTERNAL_ERROR = -32603;

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

/** A valid grey PNG of this size. */
function png(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let row = 0; row < height; row++) rows[row * (width + 1)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', new Uint8Array()),
  ]);
}

/** Width and height from a PNG's IHDR, after checking its signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const drawChart = defineTool({
  name: 'draw_chart',
  title: 'Draw a chart',
  description: 'Draw a chart of the given size. Returns its title and the chart as a PNG image.',
  input: {
    width: z.number().int().min(1).max(100),
    height: z.number().int().min(1).max(100),
    plain: z.boolean(),
  },
  output: { title: z.string() },
  annotations: readOnly,
  images: true,
  handler: ({ width, height, plain }) =>
    plain
      ? { title: 'no chart' }
      : withImages({ title: 'Burndown', extra: 'stripped' }, [
          { data: png(width, height), mimeType: 'image/png' },
        ]),
});

const sneakyImage = defineTool({
  name: 'get_sneaky',
  title: 'Sneaky',
  description: 'Returns an image without declaring it. Use it to test the check.',
  input: {},
  output: { ok: z.boolean() },
  annotations: readOnly,
  handler: () => withImages({ ok: true }, [{ data: png(1, 1), mimeType: 'image/png' }]),
});

const badImage = defineTool({
  name: 'get_bad_image',
  title: 'Bad image',
  description: 'Returns an image that is not one. Use it to test the check.',
  input: { kind: z.enum(['mime', 'empty']) },
  output: { ok: z.boolean() },
  annotations: readOnly,
  images: true,
  handler: ({ kind }) =>
    withImages({ ok: true }, [
      kind === 'mime'
        ? { data: png(1, 1), mimeType: 'text/plain' }
        : { data: new Uint8Array(), mimeType: 'image/png' },
    ]),
});

const chartResource = defineResource({
  uri: 'charts://{size}',
  name: 'chart',
  description: 'A square chart as PNG, by its size in pixels.',
  mimeType: 'image/png',
  binary: true,
  variables: { size: { description: 'Width and height in pixels' } },
  read: ({ size }) => (size === 'text' ? 'not bytes' : Buffer.from(png(Number(size), Number(size)))),
});

const textResource = defineResource({
  uri: 'notes://{which}',
  name: 'note',
  description: 'A note as text.',
  mimeType: 'text/plain',
  variables: { which: { description: 'Which note' } },
  read: ({ which }) => (which === 'bytes' ? new Uint8Array([1, 2, 3]) : `note ${which}`),
});

function server(): ServerDefinition {
  return defineServer({
    name: 'pictures',
    version: '1.0.0',
    deps: {},
    tools: [drawChart, sneakyImage, badImage],
    resources: [chartResource, textResource],
  });
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('images in tool answers', () => {
  it('sends the structured content, its JSON text, one image block per image and a text saying so', async () => {
    harness = await connect(server());
    const result = await harness.client.callTool({
      name: 'draw_chart',
      arguments: { width: 37, height: 21, plain: false },
    });
    expect(expectToolOk(result)).toEqual({ title: 'Burndown' });
    const content = result.content as Array<Record<string, string>>;
    expect(content.map((block) => block.type)).toEqual(['text', 'image', 'text']);
    expect(content[0]?.text).toBe('{"title":"Burndown"}');
    expect(content[1]?.mimeType).toBe('image/png');
    expect(pngSize(Buffer.from(content[1]?.data ?? '', 'base64'))).toEqual({ width: 37, height: 21 });
    expect(content[2]).toEqual({ type: 'text', text: '1 image attached (image/png)' });
  });

  it('answers a plain structured return of a tool that may attach images as before', async () => {
    harness = await connect(server());
    const result = await harness.client.callTool({
      name: 'draw_chart',
      arguments: { width: 1, height: 1, plain: true },
    });
    expect(expectToolOk(result)).toEqual({ title: 'no chart' });
    expect(result.content).toHaveLength(1);
  });

  it('treats images from a tool not declared with images: true, or images that are none, as a server bug', async () => {
    harness = await connect(server());
    const sneaky = expectToolError(
      await harness.client.callTool({ name: 'get_sneaky', arguments: {} }),
      'internal',
    );
    expect(sneaky.message).not.toContain('images');
    expect(harness.logs.join('')).toContain(
      'get_sneaky returned images, but its definition does not declare images: true',
    );
    for (const kind of ['mime', 'empty']) {
      expectToolError(
        await harness.client.callTool({ name: 'get_bad_image', arguments: { kind } }),
        'internal',
      );
    }
    expect(harness.logs.join('')).toContain('has mimeType "text/plain", not image/');
    expect(harness.logs.join('')).toContain('has no bytes');
  });
});

describe('binary resources', () => {
  it('answers a binary resource with its bytes as a base64 blob', async () => {
    harness = await connect(server());
    const { contents } = await harness.client.readResource({ uri: 'charts://12' });
    expect(contents).toHaveLength(1);
    const [blob] = contents as Array<{ uri: string; mimeType: string; blob: string; text?: string }>;
    expect(blob?.uri).toBe('charts://12');
    expect(blob?.mimeType).toBe('image/png');
    expect(blob?.text).toBeUndefined();
    expect(pngSize(Buffer.from(blob?.blob ?? '', 'base64'))).toEqual({ width: 12, height: 12 });
    expect(await harness.client.readResource({ uri: 'notes://a' })).toEqual({
      contents: [{ uri: 'notes://a', mimeType: 'text/plain', text: 'note a' }],
    });
  });

  it('answers a binary read of text, or a text read of bytes, with an internal error', async () => {
    harness = await connect(server());
    await expectRpcError(harness.client.readResource({ uri: 'charts://text' }), INTERNAL_ERROR);
    await expectRpcError(harness.client.readResource({ uri: 'notes://bytes' }), INTERNAL_ERROR);
    expect(harness.logs.join('')).toContain('binary resource chart read text, not bytes');
    expect(harness.logs.join('')).toContain(
      'resource note read bytes, but its definition does not declare binary: true',
    );
  });
});
