import { describe, expect, it } from 'vitest';
import {
  barChart,
  ChartInputError,
  chartSpec,
  lineChart,
  NO_DATA,
  PALETTE,
  renderSvg,
  stackedBarChart,
} from '../src/index.js';
import { burndown, durations, velocity } from './fixtures/data.js';
import { parseSvg, texts } from './helpers.js';

/** The aria-labels vega gives marks: one per point or bar, naming its x, y and series. */
function labels(svg: string): string[] {
  return [...svg.matchAll(/aria-label="([^"]*)"/g)].map((match) => match[1] ?? '');
}

describe('line chart', () => {
  it('draws a burndown: both lines, every day, the scope change and the titles', async () => {
    const svg = await lineChart(burndown);
    const root = parseSvg(svg);
    expect(root).toMatchObject({ width: '600', height: '300', viewBox: '0 0 600 300' });
    const text = texts(svg);
    expect(text).toEqual(
      expect.arrayContaining([
        'Sprint 12 burndown',
        'Day',
        'Points remaining',
        'Ideal',
        'Actual',
        'Scope +8',
      ]),
    );
    expect(text).toEqual(expect.arrayContaining(['Mar 02', 'Mar 04', '0', '40']));
    expect(labels(svg)).toEqual(
      expect.arrayContaining([
        'Day: Mar 02; Points remaining: 40; series: Ideal',
        'Day: Mar 05; Points remaining: 45; series: Actual',
        'Day: Mar 09; Points remaining: 11; series: Actual',
      ]),
    );
    // The ideal line is dashed, the actual one is not.
    expect(svg).toMatch(/<path[^>]*stroke="#0072B2"[^>]*stroke-dasharray="6,4"/);
  });

  it('draws p50 and p95 durations per day', async () => {
    const svg = await lineChart(durations);
    parseSvg(svg);
    expect(texts(svg)).toEqual(expect.arrayContaining(['Pipeline duration', 'Minutes', 'p50', 'p95']));
    expect(labels(svg)).toEqual(
      expect.arrayContaining([
        'Day: Mar 05; Minutes: 22; series: p95',
        'Day: Mar 05; Minutes: 8; series: p50',
      ]),
    );
  });

  it('takes numbers on a quantitative x', async () => {
    const svg = await lineChart({
      title: 'Growth',
      x: { title: 'Week', type: 'quantitative' },
      y: { title: 'Tickets' },
      series: [{ name: 'Open', points: [1, 2, 3].map((x) => ({ x, y: x * 10 })) }],
    });
    expect(labels(svg)).toContain('Week: 3; Tickets: 30; series: Open');
  });
});

describe('bar charts', () => {
  it('draws velocity as bars side by side, sprints in the order given', async () => {
    const svg = await barChart(velocity);
    parseSvg(svg);
    const text = texts(svg);
    expect(text).toEqual(
      expect.arrayContaining(['Velocity', 'Sprint', 'Story points', 'Committed', 'Completed']),
    );
    const ticks = text.filter((value) => value.startsWith('Sprint '));
    expect(ticks).toEqual(['Sprint 9', 'Sprint 10', 'Sprint 11']);
    expect(labels(svg)).toEqual(
      expect.arrayContaining([
        'Sprint: Sprint 9; Story points: 30; series: Committed',
        'Sprint: Sprint 11; Story points: 25; series: Completed',
      ]),
    );
  });

  it('stacks the series in the order given', async () => {
    const svg = await stackedBarChart(velocity);
    parseSvg(svg);
    expect(texts(svg)).toEqual(expect.arrayContaining(['Velocity', 'Committed', 'Completed', '60']));
    const bars = labels(svg).filter((label) => label.startsWith('Sprint: Sprint 10;'));
    expect(bars).toEqual([
      'Sprint: Sprint 10; Story points: 34; series: Committed; order: 0',
      'Sprint: Sprint 10; Story points: 35; series: Completed; order: 1',
    ]);
  });
});

describe('bar charts on days and numbers', () => {
  it('gives one bar group per day, days in order', async () => {
    const svg = await barChart({
      title: 'Runs',
      x: { title: 'Day', type: 'temporal' },
      y: { title: 'Runs' },
      series: [
        {
          name: 'ok',
          points: [
            { x: '2026-03-03', y: 5 },
            { x: '2026-03-02', y: 3 },
          ],
        },
      ],
    });
    expect(texts(svg).filter((text) => text.startsWith('Mar'))).toEqual(['Mar 02', 'Mar 03']);
  });

  it('puts numbers in ascending order', async () => {
    const svg = await barChart({
      title: 'Runs',
      x: { title: 'Build', type: 'quantitative' },
      y: { title: 'Minutes' },
      series: [{ name: 'ok', points: [1, 10, 2].map((x) => ({ x, y: x })) }],
    });
    expect(texts(svg).slice(0, 3)).toEqual(['1', '2', '10']);
  });
});

describe('house style', () => {
  it('colours series with the colour-blind-safe palette, in order, and sets a generic font', () => {
    const spec = JSON.stringify(chartSpec('bar', velocity));
    expect(spec).toContain(`"range":["${PALETTE[0]}","${PALETTE[1]}"]`);
    expect(spec).toContain('"font":"sans-serif"');
  });

  it('escapes text: titles and names are data, never markup', async () => {
    const title = 'Tom & Jerry <b>"quoted"</b>';
    const svg = await barChart({
      ...velocity,
      title,
      series: [{ name: '<script>', points: [{ x: 'a&b', y: 1 }] }],
    });
    parseSvg(svg);
    expect(svg).not.toContain('<script>');
    expect(texts(svg)).toEqual(expect.arrayContaining([title, '<script>', 'a&b']));
  });

  it('draws at the size asked for', async () => {
    const root = parseSvg(await barChart({ ...velocity, width: 800, height: 400 }));
    expect(root).toMatchObject({ width: '800', height: '400' });
  });
});

describe('determinism', () => {
  it('gives byte-identical SVG for the same data', async () => {
    for (const kind of ['line', 'bar', 'stackedBar'] as const) {
      const input = kind === 'line' ? burndown : velocity;
      expect(await renderSvg(kind, input)).toBe(await renderSvg(kind, structuredClone(input)));
    }
  });

  it('gives the same SVG in every time zone', async () => {
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const utc = await lineChart(burndown);
      process.env.TZ = 'Pacific/Auckland';
      expect(new Date('2026-03-05T00:00:00Z').getDate()).toBe(5);
      expect(await lineChart(burndown)).toBe(utc);
      process.env.TZ = 'America/Los_Angeles';
      expect(new Date('2026-03-05T00:00:00Z').getDate()).toBe(4);
      expect(await lineChart(burndown)).toBe(utc);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('input', () => {
  it('says "No data" for no series, or series without points, with the title kept', async () => {
    for (const series of [[], [{ name: 'Actual', points: [] }]]) {
      for (const draw of [lineChart, barChart, stackedBarChart]) {
        const svg = await draw({ ...burndown, series });
        parseSvg(svg);
        expect(texts(svg)).toEqual([NO_DATA, 'Sprint 12 burndown']);
      }
    }
  });

  it.each([
    ['a missing title', { ...velocity, title: undefined }, /title/],
    [
      'a y that is not a number',
      { ...velocity, series: [{ name: 'A', points: [{ x: 'S1', y: '3' }] }] },
      /y must/,
    ],
    [
      'a y that is NaN',
      { ...velocity, series: [{ name: 'A', points: [{ x: 'S1', y: Number.NaN }] }] },
      /y must/,
    ],
    [
      'two series of one name',
      { ...velocity, series: [velocity.series[0], velocity.series[0]] },
      /two series/,
    ],
    ['a day that is no date', { ...burndown, markers: [{ x: 'someday', label: 'Scope' }] }, /a day/],
    [
      'a time without a zone',
      { ...burndown, markers: [{ x: '2026-03-05T10:00', label: 'Scope' }] },
      /zone|offset/,
    ],
    ['a width out of range', { ...velocity, width: 10 }, /width/],
    ['points that are not an array', { ...velocity, series: [{ name: 'A', points: null }] }, /points/],
  ])('refuses %s with a ChartInputError', async (_, input, message) => {
    const draw = barChart as (input: unknown) => Promise<string>;
    await expect(draw(input)).rejects.toThrow(ChartInputError);
    await expect(draw(input)).rejects.toThrow(message);
  });
});
