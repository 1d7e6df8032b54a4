import { type Connected, callOk, readText } from '@shipyard/testing';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectSprint, createSprint, createStory } from './helpers.js';

let client: Connected;
let time: Awaited<ReturnType<typeof connectSprint>>['time'];

beforeEach(async () => {
  ({ client, time } = await connectSprint({ at: '2026-03-01T10:00:00Z' }));
});
afterEach(async () => {
  await client.close();
});

/** Parses the SVG as XML (throwing when it is not well-formed) and returns its root element. */
function parseSvg(svg: string): Record<string, unknown> {
  const valid = XMLValidator.validate(svg);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg}`);
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg).svg;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from the IHDR chunk, after checking the PNG signature. */
function pngSize(png: Uint8Array): { width: number; height: number } {
  if (!SIGNATURE.every((byte, index) => png[index] === byte)) throw new Error('not a PNG signature');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** The image blocks of a tool answer, decoded. */
async function imagesOf(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; data?: string; mimeType?: string }[];
    structuredContent?: Record<string, unknown>;
  };
  expect(result.isError).toBeFalsy();
  const images = result.content
    .filter((block) => block.type === 'image')
    .map((block) => ({
      mimeType: block.mimeType,
      png: new Uint8Array(Buffer.from(block.data ?? '', 'base64')),
    }));
  return { images, structured: result.structuredContent };
}

/** Every text node of the SVG. */
const texts = (svg: string) => [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((match) => match[1]);

it('draws the burndown as SVG with both lines, the title and the scope change', async () => {
  await createSprint(client, { name: 'One' });
  await createStory(client, { title: 'a', points: 5, sprint: 'S-1' });
  time.set('2026-03-02T09:00:00Z');
  await callOk(client, 'start_sprint', { sprint: 'S-1' });
  time.set('2026-03-03T09:00:00Z');
  await createStory(client, { title: 'b', points: 3, sprint: 'S-1' });
  const svg = await readText(client, 'sprint://S-1/burndown.svg');
  expect(parseSvg(svg)).toMatchObject({ width: '600', height: '300' });
  const shown = texts(svg);
  expect(shown).toContain('S-1 One burndown');
  expect(shown).toEqual(expect.arrayContaining(['Ideal', 'Actual', 'Scope +3', 'Points remaining']));
  // Two lines: the dashed ideal and the actual one.
  expect(svg.match(/<path[^>]*stroke-dasharray/g)?.length).toBeGreaterThan(0);
});

it('draws the velocity as SVG bars per closed sprint', async () => {
  for (const name of ['One', 'Two']) {
    const sprint = await createSprint(client, { name });
    await createStory(client, { points: 4, sprint: sprint.key });
    await callOk(client, 'start_sprint', { sprint: sprint.key });
    await callOk(client, 'close_sprint', { sprint: sprint.key });
  }
  const svg = await readText(client, 'sprint://velocity.svg');
  parseSvg(svg);
  expect(texts(svg)).toEqual(
    expect.arrayContaining(['Velocity, team default', 'S-1', 'S-2', 'Committed', 'Completed']),
  );
});

it('attaches the burndown and velocity as PNG images unless chart is false', async () => {
  const sprint = await createSprint(client, { name: 'One' });
  await createStory(client, { points: 4, sprint: sprint.key });
  await callOk(client, 'start_sprint', { sprint: sprint.key });
  const burndown = await imagesOf('get_burndown', { sprint: 'S-1' });
  expect(burndown.images).toHaveLength(1);
  expect(burndown.images[0]?.mimeType).toBe('image/png');
  expect(pngSize(burndown.images[0]?.png ?? new Uint8Array())).toEqual({ width: 600, height: 300 });
  expect(burndown.structured?.sprint).toBe('S-1');
  expect((await imagesOf('get_burndown', { sprint: 'S-1', chart: false })).images).toEqual([]);
  await callOk(client, 'close_sprint', { sprint: 'S-1' });
  const velocity = await imagesOf('get_velocity', {});
  expect(velocity.images.map((image) => pngSize(image.png))).toEqual([{ width: 600, height: 300 }]);
  expect((await imagesOf('get_velocity', { chart: false })).images).toEqual([]);
});

it('serves the charts as PNG resources', async () => {
  await createSprint(client, { name: 'One' });
  for (const uri of ['sprint://S-1/burndown.png', 'sprint://velocity.png']) {
    const { contents } = await client.readResource({ uri });
    const blob = (contents[0] as { blob?: string; mimeType?: string }) ?? {};
    expect(blob.mimeType).toBe('image/png');
    expect(pngSize(new Uint8Array(Buffer.from(blob.blob ?? '', 'base64')))).toEqual({
      width: 600,
      height: 300,
    });
  }
});
