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
