import {
  assertContract,
  type Connected,
  callError,
  callOk,
  checkBadInputs,
  expectRpcError,
  promptText,
  readText,
  watchResourceUpdates,
} from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import createStoryTool from '../src/tools/create_story.js';
import moveStoryTool from '../src/tools/move_story.js';
import { connectSprint, createSprint, createStory, reportsPerWrite, untilWatching } from './helpers.js';

let client: Connected;
let definition: Awaited<ReturnType<typeof connectSprint>>['definition'];
let time: Awaited<ReturnType<typeof connectSprint>>['time'];

beforeEach(async () => {
  ({ client, definition, time } = await connectSprint({ at: '2026-03-01T10:00:00Z' }));
});
afterEach(async () => {
  await client.close();
});

/** Run the scripted sprint of test/scripted.ts through the tools; returns the story keys. */
async function scriptedSprint() {
  await createSprint(client, { name: 'One', start_date: '2026-03-02', end_date: '2026-03-06' });
  await createSprint(client, { name: 'Two', start_date: '2026-03-09', end_date: '2026-03-13' });
  const a = await createStory(client, { title: 'A', points: 5, sprint: 'S-1' });
  const b = await createStory(client, { title: 'B', points: 3, sprint: 'S-1' });
  const c = await createStory(client, { title: 'C', points: 8, sprint: 'S-1' });
  const d = await createStory(client, { title: 'D', points: 2, sprint: 'S-1' });
  time.set('2026-03-02T09:00:00Z');
  const started = await callOk(client, 'start_sprint', { sprint: 'S-1' });
  expect(started).toEqual({ version: 2, committed_count: 4, committed_points: 18 });
  const at = async (iso: string, tool: string, args: Record<string, unknown>) => {
    time.set(iso);
    return callOk(client, tool, args);
  };
  await at('2026-03-02T10:00:00Z', 'set_story_status', { story: a.key, status: 'in_progress' });
  time.set('2026-03-03T11:00:00Z');
  const e = await createStory(client, { title: 'E', points: 5, sprint: 'S-1' });
  await at('2026-03-03T15:00:00Z', 'set_story_status', { story: a.key, status: 'done' });
  await at('2026-03-04T09:00:00Z', 'update_story', { story: b.key, points: 5 });
  await at('2026-03-04T10:00:00Z', 'set_story_status', { story: b.key, status: 'in_progress' });
  await at('2026-03-04T12:00:00Z', 'move_story', { story: d.key, to: 'backlog' });
  await at('2026-03-05T10:00:00Z', 'set_story_status', { story: c.key, status: 'in_progress' });
  await at('2026-03-05T17:00:00Z', 'set_story_status', { story: e.key, status: 'done' });
  await at('2026-03-05T19:00:00Z', 'set_story_status', { story: b.key, status: 'done' });
  return { a, b, c, d, e };
}

describe('a scripted sprint through the tools', () => {
  it('shows the board with committed vs now and days left', async () => {
    await scriptedSprint();
    time.set('2026-03-05T20:00:00Z');
    const board = await callOk<Record<string, unknown>>(client, 'get_sprint', { sprint: 's-1' });
    // Now: A5 B5 E5 done, C8 in progress; D left. Days left: Thursday and Friday.
    expect(board).toMatchObject({
      name: 'One',
      status: 'active',
      days_left: 2,
      total_points: 23,
      remaining_points: 8,
      committed_points: 18,
    });
    const columns = board.columns as {
      status: string;
      count: number;
      points: number;
      stories: { key: string }[];
    }[];
    expect(columns.map((c) => [c.status, c.count, c.points])).toEqual([
      ['todo', 0, 0],
      ['in_progress', 1, 8],
      ['in_review', 0, 0],
      ['done', 3, 15],
      ['blocked', 0, 0],
    ]);
    expect(columns[3]?.stories.map((s) => s.key)).toEqual(['ST-1', 'ST-2', 'ST-5']);
  });

  it('closes with the figures worked out by hand and carries C to the next sprint', async () => {
    const { c } = await scriptedSprint();
    time.set('2026-03-06T18:00:00Z');
    const closed = await callOk(client, 'close_sprint', { sprint: 'S-1', carry_to: 'S-2' });
    expect(closed).toEqual({
      version: 3,
      committed: 18,
      completed: 15,
      added: 7,
      removed: 2,
      carried: 8,
      completion_rate: 0.83,
      carried_stories: [c.key],
    });
    const velocity = await callOk(client, 'get_velocity', { chart: false });
    expect(velocity).toEqual({
      sprints: [{ sprint: 'S-1', committed: 18, completed: 15, added: 7, removed: 2, completion_rate: 0.83 }],
      average_completed: 15,
      trend: 'unknown',
    });
    const two = await callOk<{ columns: { status: string; stories: { key: string }[] }[] }>(
      client,
      'get_sprint',
      {
        sprint: 'S-2',
      },
    );
    expect(two.columns[1]?.stories.map((s) => s.key)).toEqual([c.key]);
  });

  it('burns down day by day with the scope changes', async () => {
    await scriptedSprint();
    time.set('2026-03-06T18:00:00Z');
    await callOk(client, 'close_sprint', { sprint: 'S-1' });
    const data = await callOk(client, 'get_burndown', { sprint: 'S-1', chart: false });
    expect(data).toEqual({
      sprint: 'S-1',
      days: [
        { date: '2026-03-02', ideal: 18, actual: 18, scope_change: 0 },
        { date: '2026-03-03', ideal: 13.5, actual: 18, scope_change: 5 },
        { date: '2026-03-04', ideal: 9, actual: 18, scope_change: 0 },
        { date: '2026-03-05', ideal: 4.5, actual: 8, scope_change: 0 },
        { date: '2026-03-06', ideal: 0, actual: 8, scope_change: 0 },
      ],
      scope_changes: [
        '2026-03-03 ST-5 added +5',
        '2026-03-04 ST-2 re-estimated +2',
        '2026-03-04 ST-4 removed -2',
      ],
    });
  });

  it('measures cycle time from the status events', async () => {
    await scriptedSprint();
    const cycle = await callOk(client, 'get_cycle_time', { sprint: 'S-1' });
    expect(cycle).toEqual({
      cycle: { count: 2, median_hours: 31, p85_hours: 32.4 },
      per_status: {
        in_progress: { count: 2, median_hours: 31, p85_hours: 32.4 },
        todo: { count: 4, median_hours: 63, p85_hours: 85.2 },
      },
    });
    // The team's last 90 days hold the same stories.
    time.set('2026-03-10T00:00:00Z');
    expect(await callOk(client, 'get_cycle_time', {})).toEqual(cycle);
  });
});

/** Close `n` sprints of the team, completing `points[i]` points in each. */
async function history(points: number[]) {
  let day = Date.parse('2026-01-05T00:00:00Z');
  for (const [i, done] of points.entries()) {
    const start = new Date(day).toISOString().slice(0, 10);
    const end = new Date(day + 4 * 86_400_000).toISOString().slice(0, 10);
    time.set(`${start}T08:00:00Z`);
    const sprint = await createSprint(client, { name: `H${i}`, start_date: start, end_date: end });
    const story = await createStory(client, { title: `h${i}`, points: done, sprint: sprint.key });
    time.set(`${start}T09:00:00Z`);
    await callOk(client, 'start_sprint', { sprint: sprint.key });
    time.set(`${start}T12:00:00Z`);
    await callOk(client, 'set_story_status', { story: story.key, status: 'done' });
    time.set(`${end}T17:00:00Z`);
    await callOk(client, 'close_sprint', { sprint: sprint.key });
    day += 7 * 86_400_000;
  }
}

describe('velocity and forecast over a history', () => {
  it('gives the average and a rising trend', async () => {
    await history([10, 12, 14]);
    const velocity = await callOk(client, 'get_velocity', { chart: false, last: 2 });
    expect(velocity).toMatchObject({ average_completed: 13, trend: 'rising' });
    expect((velocity.sprints as { sprint: string }[]).map((s) => s.sprint)).toEqual(['S-2', 'S-3']);
  });

  it('forecasts reproducibly with a seed, through a backlog story', async () => {
    await history([10, 10, 10]);
    time.set('2026-03-02T08:00:00Z');
    await createStory(client, { title: 'x', points: 20 });
    const last = await createStory(client, { title: 'y', points: 15 });
    await createStory(client, { title: 'z' });
    const answer = await callOk(client, 'forecast_completion', { through: last.key, seed: 1 });
    // 35 points at 10 a sprint: 4 five-day sprints from today.
    expect(answer).toEqual({
      points: 35,
      unestimated: 0,
      seed: 1,
      percentiles: [
        { p: 50, sprints: 4, date: '2026-03-21' },
        { p: 85, sprints: 4, date: '2026-03-21' },
        { p: 95, sprints: 4, date: '2026-03-21' },
      ],
    });
    expect(await callOk(client, 'forecast_completion', { through: last.key, seed: 1 })).toEqual(answer);
  });

  it('says when history is too short', async () => {
    await history([10]);
    const answer = await callOk(client, 'forecast_completion', { points: 30, seed: 3 });
    expect(answer.reason).toContain('at least 3');
    expect(answer.percentiles).toBeUndefined();
  });

  it('asks for points or through', async () => {
    await callError(client, 'forecast_completion', {}, 'invalid_input');
  });
});

describe('errors', () => {
  it('refuses a second active sprint of a team', async () => {
    await createSprint(client);
    await createSprint(client);
    await callOk(client, 'start_sprint', { sprint: 'S-1' });
    const error = await callError(client, 'start_sprint', { sprint: 'S-2' }, 'conflict');
    expect(error.message).toContain('S-1');
    // Another team may have its own.
    const other = await createSprint(client, { team: 'web' });
    await callOk(client, 'start_sprint', { sprint: other.key });
  });

  it('refuses to close a planned sprint', async () => {
    await createSprint(client);
    const error = await callError(client, 'close_sprint', { sprint: 'S-1' }, 'conflict');
    expect(error.hint).toContain('start_sprint');
  });

  it('refuses dates out of order', async () => {
    const error = await callError(
      client,
      'create_sprint',
      { name: 'x', start_date: '2026-03-06', end_date: '2026-03-02' },
      'invalid_input',
    );
    expect(error.message).toContain('end_date');
    await callError(
      client,
      'create_sprint',
      { name: 'x', start_date: '2026-02-30', end_date: '2026-03-02' },
      'invalid_input',
    );
  });

  it('keeps a closed sprint read-only', async () => {
    await createSprint(client);
    const story = await createStory(client, { sprint: 'S-1', points: 1 });
    await callOk(client, 'start_sprint', { sprint: 'S-1' });
    await callOk(client, 'set_story_status', { story: story.key, status: 'done' });
    await callOk(client, 'close_sprint', { sprint: 'S-1' });
    await callError(client, 'update_story', { story: story.key, title: 'new' }, 'conflict');
    await callError(client, 'set_story_status', { story: story.key, status: 'todo' }, 'conflict');
    await callError(client, 'move_story', { story: story.key, to: 'backlog' }, 'conflict');
    const other = await createStory(client);
    await callError(client, 'move_story', { story: other.key, to: 'S-1' }, 'conflict');
    await callError(client, 'close_sprint', { sprint: 'S-1' }, 'conflict');
    await callError(client, 'start_sprint', { sprint: 'S-1' }, 'conflict');
  });

  it('answers unknown keys with not_found and a hint', async () => {
    expect((await callError(client, 'get_sprint', { sprint: 'S-9' }, 'not_found')).hint).toContain(
      'list_sprints',
    );
    expect(
      (await callError(client, 'update_story', { story: 'ST-9', title: 'x' }, 'not_found')).hint,
    ).toContain('get_backlog');
    await callError(client, 'get_burndown', { sprint: 'nope', chart: false }, 'not_found');
    await callError(client, 'create_story', { title: 'x', sprint: 'S-4' }, 'not_found');
  });

  it('refuses a stale version', async () => {
    const story = await createStory(client);
    await callOk(client, 'update_story', { story: story.key, title: 'one', expected_version: 1 });
    const error = await callError(
      client,
      'update_story',
      { story: story.key, title: 'two', expected_version: 1 },
      'conflict',
    );
    expect(error.message).toContain('version 2');
    // The backlog shows the version to pass.
    const backlog = await callOk<{ items: { key: string; version: number }[] }>(client, 'get_backlog', {});
    expect(backlog.items).toMatchObject([{ key: story.key, version: 2 }]);
    await callError(
      client,
      'set_story_status',
      { story: story.key, status: 'done', expected_version: 1 },
      'conflict',
    );
    await callError(
      client,
      'move_story',
      { story: story.key, to: 'backlog', expected_version: 1 },
      'conflict',
    );
  });

  it('refuses to place a story relative to itself', async () => {
    const story = await createStory(client);
    const error = await callError(
      client,
      'move_story',
      { story: story.key, before: story.key },
      'invalid_input',
    );
    expect(error.message).toContain('itself');
    await callError(client, 'move_story', { story: story.key }, 'invalid_input');
  });
});

describe('backlog and moves', () => {
  it('ranks stories, moves one between two, and pages by rank', async () => {
    const keys: string[] = [];
    for (const title of ['a', 'b', 'c', 'd', 'e']) keys.push((await createStory(client, { title })).key);
    await callOk(client, 'move_story', { story: 'ST-5', before: 'ST-2' });
    await callOk(client, 'move_story', { story: 'ST-1', after: 'ST-4' });
    const first = await callOk<{ items: { key: string }[]; next_cursor: string; total: number }>(
      client,
      'get_backlog',
      { limit: 3 },
    );
    expect(first.items.map((s) => s.key)).toEqual(['ST-5', 'ST-2', 'ST-3']);
    expect(first.total).toBe(5);
    const second = await callOk<{ items: { key: string }[]; next_cursor: string | null }>(
      client,
      'get_backlog',
      {
        limit: 3,
        cursor: first.next_cursor,
      },
    );
    expect(second.items.map((s) => s.key)).toEqual(['ST-4', 'ST-1']);
    expect(second.next_cursor).toBeNull();
  });

  it('filters the backlog', async () => {
    await createStory(client, { title: 'a', priority: 'high', assignee: 'bo' });
    await createStory(client, { title: 'b', priority: 'low' });
    const high = await callOk<{ items: { key: string }[] }>(client, 'get_backlog', { priority: 'high' });
    expect(high.items.map((s) => s.key)).toEqual(['ST-1']);
    const bo = await callOk<{ items: { key: string }[] }>(client, 'get_backlog', { assignee: 'bo' });
    expect(bo.items.map((s) => s.key)).toEqual(['ST-1']);
  });

  it('lists sprints by team and status', async () => {
    await createSprint(client, { name: 'a' });
    await createSprint(client, { name: 'b', team: 'web' });
    await callOk(client, 'start_sprint', { sprint: 'S-2' });
    const web = await callOk<{ items: { key: string }[] }>(client, 'list_sprints', { team: 'web' });
    expect(web.items.map((s) => s.key)).toEqual(['S-2']);
    const planned = await callOk<{ items: { key: string }[] }>(client, 'list_sprints', { status: 'planned' });
    expect(planned.items.map((s) => s.key)).toEqual(['S-1']);
  });

  it('handles bad input without crashing or leaking internals', async () => {
    await createSprint(client);
    const story = await createStory(client);
    expect(
      (
        await checkBadInputs(
          client,
          'create_story',
          createStoryTool.input,
          { title: 'Valid' },
          { allowedCodes: ['not_found'] },
        )
      ).rejected,
    ).toBeGreaterThan(0);
    expect(
      (
        await checkBadInputs(
          client,
          'move_story',
          moveStoryTool.input,
          { story: story.key, to: 'S-1' },
          {
            allowedCodes: ['not_found', 'conflict'],
          },
        )
      ).rejected,
    ).toBeGreaterThan(0);
  });

  it('is refused in read-only mode', async () => {
    const { client: readOnly } = await connectSprint({ readOnly: true });
    try {
      const names = (await readOnly.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('get_velocity');
      expect(names).not.toContain('move_story');
    } finally {
      await readOnly.close();
    }
  });
});

describe('resources', () => {
  it('reads the sprint list, a summary, a board and the backlog', async () => {
    await createSprint(client, { name: 'One', goal: 'Ship it' });
    await createStory(client, { title: 'On the board', points: 3, sprint: 'S-1' });
    await createStory(client, { title: 'Later' });
    expect(JSON.parse(await readText(client, 'sprint://sprints'))).toEqual([
      { key: 'S-1', team: 'default', name: 'One', end_date: '2026-03-06', status: 'planned' },
    ]);
    const summary = await readText(client, 'sprint://S-1');
    expect(summary).toContain('# S-1 One');
    expect(summary).toContain('Ship it');
    expect(summary).toContain('ST-1 On the board (3 points)');
    const board = JSON.parse(await readText(client, 'sprint://S-1/board'));
    expect(board.totals).toEqual({ count: 1, points: 3, done: 0, remaining: 3 });
    expect(JSON.parse(await readText(client, 'sprint://backlog')).map((s: { key: string }) => s.key)).toEqual(
      ['ST-2'],
    );
  });

  it('answers -32002 for a sprint that does not exist', async () => {
    await expectRpcError(client.readResource({ uri: 'sprint://S-99' }), -32002);
  });

  it('completes sprint keys', async () => {
    for (let i = 0; i < 11; i++) await createSprint(client);
    const done = await client.complete({
      ref: { type: 'ref/resource', uri: 'sprint://{sprint}' },
      argument: { name: 'sprint', value: 'S-1' },
    });
    expect(done.completion.values).toEqual(['S-1', 'S-10', 'S-11']);
  });

  it('notifies subscribers of the sprint a write changed', async () => {
    await createSprint(client);
    const updates = watchResourceUpdates(client);
    await untilWatching(client, updates);
    await client.subscribeResource({ uri: 'sprint://S-1/board' });
    await client.subscribeResource({ uri: 'sprint://backlog' });
    const seen = () => updates.filter((uri) => uri !== 'sprint://sprints').sort();
    const times = (uri: string, n: number) => Array.from({ length: n * reportsPerWrite }, () => uri);
    await createStory(client, { sprint: 'S-1' });
    await expect.poll(seen).toEqual(times('sprint://S-1/board', 1));
    await callOk(client, 'move_story', { story: 'ST-1', to: 'backlog' });
    await expect.poll(seen).toEqual([...times('sprint://S-1/board', 2), ...times('sprint://backlog', 1)]);
  });
});

describe('prompts', () => {
  it('renders each prompt naming the tools to call', async () => {
    await createSprint(client);
    const planning = await promptText(client, 'sprint-planning', { sprint: 'S-1', capacity: '20' });
    expect(planning).toContain('`get_backlog`');
    expect(planning).toContain('`move_story`');
    expect(planning).toContain('20 points');
    expect(await promptText(client, 'sprint-review', { sprint: 'S-1', format: 'metrics-only' })).toContain(
      'only the figures',
    );
    expect(await promptText(client, 'daily-standup', { sprint: 'S-1' })).toContain('blocked');
    expect(await promptText(client, 'retrospective', { sprint: 'S-1' })).toContain('`get_cycle_time`');
  });

  it('keeps its contract and lints clean', async () => {
    await assertContract(client, definition, {
      tools: [
        'create_sprint',
        'list_sprints',
        'get_sprint',
        'start_sprint',
        'close_sprint',
        'create_story',
        'update_story',
        'set_story_status',
        'move_story',
        'get_backlog',
        'get_velocity',
        'get_burndown',
        'get_cycle_time',
        'forecast_completion',
      ],
      resources: [
        'sprint://sprints',
        'sprint://backlog',
        'sprint://velocity.svg',
        'sprint://velocity.png',
        'sprint://{sprint}',
        'sprint://{sprint}/board',
        'sprint://{sprint}/burndown.svg',
        'sprint://{sprint}/burndown.png',
      ],
      prompts: ['sprint-planning', 'sprint-review', 'daily-standup', 'retrospective'],
    });
  });
});
