import { toolsListSize } from '@shipyard/core/lint';
import { type Connected, checkBadInputs, snapshotToolSchemas } from '@shipyard/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { createSprintServer } from '../src/server.js';
import { connectSprint, createSprint, createStory } from './helpers.js';

let client: Connected;
let definition: ReturnType<typeof createSprintServer>;

beforeEach(async () => {
  ({ client, definition } = await connectSprint());
});
afterEach(async () => {
  await client.close();
});

it('keeps tools/list under 3,500 tokens (chars/4), measured on the real answer', async () => {
  const listed = JSON.stringify(await client.listTools());
  expect(Math.ceil(listed.length / 4)).toBeLessThan(3_500);
  expect(toolsListSize(definition).chars).toBe(listed.length);
});

it('keeps its tool schemas stable', async () => {
  expect(await snapshotToolSchemas(client)).toMatchSnapshot();
});

it('names in its instructions only the tools it offers', async () => {
  expect(client.getInstructions()).toContain('move_story');
  const readOnly = await connectSprint({ readOnly: true });
  try {
    const text = readOnly.client.getInstructions() ?? '';
    for (const tool of ['move_story', 'start_sprint', 'update_story']) expect(text).not.toContain(tool);
  } finally {
    await readOnly.client.close();
  }
});

/** A valid call of every tool, for the bad-input generator to break one argument at a time. */
const VALID: Record<string, Record<string, unknown>> = {
  create_sprint: { name: 'x', start_date: '2026-03-02', end_date: '2026-03-06' },
  list_sprints: {},
  get_sprint: { sprint: 'S-1' },
  start_sprint: { sprint: 'S-1' },
  close_sprint: { sprint: 'S-1' },
  create_story: { title: 'x' },
  update_story: { story: 'ST-1', title: 'y' },
  set_story_status: { story: 'ST-1', status: 'in_progress' },
  move_story: { story: 'ST-1', before: 'ST-2' },
  get_backlog: {},
  get_velocity: { chart: false },
  get_burndown: { sprint: 'S-1', chart: false },
  get_cycle_time: {},
  forecast_completion: { points: 10 },
};

it('handles bad input to every tool without crashing or leaking internals', async () => {
  await createSprint(client);
  await createStory(client);
  await createStory(client);
  for (const tool of definition.tools) {
    const valid = VALID[tool.name];
    if (!valid) throw new Error(`no valid call for ${tool.name}`);
    const summary = await checkBadInputs(client, tool.name, tool.input, valid, {
      allowedCodes: ['not_found', 'conflict'],
    });
    expect(summary.rejected, tool.name).toBeGreaterThan(0);
  }
}, 60_000);
