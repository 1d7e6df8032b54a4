import { describe, expect, it } from 'vitest';
import { burndownChartInput, velocityChartInput } from '../src/domain/charts.js';
import {
  burndown,
  cycleTime,
  forecast,
  percentile,
  sprintVelocity,
  type VelocityRow,
  velocitySummary,
} from '../src/domain/metrics.js';
import { rankBetween } from '../src/domain/rank.js';
import { EVENTS, SPRINT } from './scripted.js';

describe('velocity', () => {
  it('counts the commitment, scope added and removed after start, re-estimates and carry-over', () => {
    // Committed A5 + B3 + C8 + D2 = 18. Added: E 5, B re-estimated +2 = 7. Removed: D 2. Done: A5 + B5 + E5.
    expect(sprintVelocity(SPRINT, EVENTS)).toEqual({
      committed: 18,
      completed: 15,
      added: 7,
      removed: 2,
      carried: 8,
      completion_rate: 0.83,
    });
  });

  it('has nothing committed for a sprint that never started', () => {
    const planned = { ...SPRINT, started_at: null, closed_at: null };
    const before = EVENTS.filter((event) => event.at < '2026-03-02');
    expect(sprintVelocity(planned, before)).toMatchObject({ committed: 0, added: 0, completion_rate: null });
  });

  it('averages the completed points and finds the trend', () => {
    const row = (sprint: string, completed: number): VelocityRow => ({
      sprint,
      name: sprint,
      committed: 20,
      completed,
      added: 0,
      removed: 0,
      carried: 0,
      completion_rate: completed / 20,
    });
    // Least squares over 10, 12, 14: slope 2 a sprint.
    expect(velocitySummary([row('S-1', 10), row('S-2', 12), row('S-3', 14)])).toEqual({
      average_completed: 12,
      average_completion_rate: 0.6,
      trend_per_sprint: 2,
      trend: 'rising',
    });
    expect(velocitySummary([row('S-1', 10), row('S-2', 10)]).trend).toBe('flat');
    expect(velocitySummary([row('S-1', 14), row('S-2', 10)]).trend).toBe('falling');
    expect(velocitySummary([]).trend).toBe('unknown');
  });
});

describe('burndown', () => {
  it('gives ideal and actual remaining per day, with scope changes marked', () => {
    const data = burndown(SPRINT, EVENTS, '2026-03-10');
    // Ideal: 18 down to 0 over five days. Actual: 18; A done (-5) and E added (+5); B +2 and D -2;
    // B and E done (-10); C still open.
    expect(data.days).toEqual([
      { date: '2026-03-02', ideal: 18, actual: 18, scope_change: 0 },
      { date: '2026-03-03', ideal: 13.5, actual: 18, scope_change: 5 },
      { date: '2026-03-04', ideal: 9, actual: 18, scope_change: 0 },
      { date: '2026-03-05', ideal: 4.5, actual: 8, scope_change: 0 },
      { date: '2026-03-06', ideal: 0, actual: 8, scope_change: 0 },
    ]);
    expect(data.committed).toBe(18);
    expect(data.scope_changes).toEqual([
      { date: '2026-03-03', story: 'E', kind: 'added', points: 5 },
      { date: '2026-03-04', story: 'B', kind: 're-estimated', points: 2 },
      { date: '2026-03-04', story: 'D', kind: 'removed', points: -2 },
    ]);
  });

  it('leaves days still to come without an actual value', () => {
    const active = { ...SPRINT, closed_at: null };
    const data = burndown(
      active,
      EVENTS.filter((event) => event.at < '2026-03-04'),
      '2026-03-03',
    );
    expect(data.days.map((day) => day.actual)).toEqual([18, 18, null, null, null]);
  });

  it('makes a line chart input with both lines and a marker per day of scope change', () => {
    const chart = burndownChartInput('S-1 burndown', burndown(SPRINT, EVENTS, '2026-03-10'));
    expect(chart.series.map((series) => [series.name, series.points.length])).toEqual([
      ['Ideal', 5],
      ['Actual', 5],
    ]);
    // Day 3 nets to zero, but a story was re-estimated and another removed: it is marked too.
    expect(chart.markers).toEqual([
      { x: '2026-03-03', label: 'Scope +5' },
      { x: '2026-03-04', label: 'Scope +2 -2' },
    ]);
  });
});

describe('cycle time', () => {
  it('gives median and p85 hours per status and from start to done', () => {
    const cycle = cycleTime(EVENTS);
    // In progress to done: A 29 h, B 33 h. In todo: A 24, E 54, B 72, C 96. In progress (left): A 29, B 33.
    expect(cycle.cycle).toEqual({ count: 2, median_hours: 31, p85_hours: 32.4 });
    expect(cycle.per_status).toEqual({
      in_progress: { count: 2, median_hours: 31, p85_hours: 32.4 },
      todo: { count: 4, median_hours: 63, p85_hours: 85.2 },
    });
  });

  it('interpolates percentiles', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([], 50)).toBeUndefined();
  });
});

describe('forecast', () => {
  const base = { points: 35, seed: 7, sprint_days: 7, from: '2026-03-09' };

  it('finishes 35 points at 10 a sprint in 4 sprints, at every percentile', () => {
    expect(forecast({ ...base, velocities: [10, 10, 10] })).toEqual({
      enough_history: true,
      sprints: { p50: 4, p85: 4, p95: 4 },
      dates: { p50: '2026-04-05', p85: '2026-04-05', p95: '2026-04-05' },
      trials: 10_000,
    });
  });

  it('gives the same answer for a seed, and ordered percentiles around the mean', () => {
    const input = { ...base, points: 30, velocities: [5, 10, 15] };
    const first = forecast(input);
    expect(forecast(input)).toEqual(first);
    if (!first.enough_history) throw new Error('expected a forecast');
    // 30 points at 10 on average: about 3 sprints, more at the pessimistic end.
    expect(first.sprints.p50).toBe(3);
    expect(first.sprints.p85).toBeGreaterThanOrEqual(first.sprints.p50);
    expect(first.sprints.p95).toBeGreaterThanOrEqual(first.sprints.p85);
    expect(first.sprints.p95).toBeLessThanOrEqual(6);
  });

  it('says when there is too little history', () => {
    expect(forecast({ ...base, velocities: [10, 12] })).toMatchObject({ enough_history: false });
    expect(forecast({ ...base, velocities: [0, 0, 0] })).toMatchObject({ enough_history: false });
  });
});

describe('charts input', () => {
  it('makes bars of committed and completed per sprint', () => {
    const rows = [
      {
        sprint: 'S-1',
        name: 'One',
        committed: 18,
        completed: 15,
        added: 7,
        removed: 2,
        carried: 8,
        completion_rate: 0.83,
      },
    ];
    expect(velocityChartInput('Velocity', rows).series).toEqual([
      { name: 'Committed', points: [{ x: 'S-1', y: 18 }] },
      { name: 'Completed', points: [{ x: 'S-1', y: 15 }] },
    ]);
  });
});

describe('ranks', () => {
  it('finds a rank between any two, and at either end', () => {
    expect(rankBetween('', null)).toBe('i');
    const ranks = ['i'];
    // Always inserting at the same place still keeps the order, with short keys.
    for (let i = 0; i < 200; i++) ranks.splice(1, 0, rankBetween(ranks[0] as string, ranks[1] ?? null));
    for (let i = 0; i < 200; i++) ranks.unshift(rankBetween('', ranks[0] as string));
    expect([...ranks].sort()).toEqual(ranks);
    expect(new Set(ranks).size).toBe(ranks.length);
    expect(Math.max(...ranks.map((rank) => rank.length))).toBeLessThan(45);
    expect(() => rankBetween('b', 'a')).toThrow(RangeError);
  });
});
