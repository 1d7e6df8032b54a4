// `pnpm bench charts`: how long @shipyard/charts takes to draw, from packages/charts/bench.ts, run in
// fresh processes. The first chart of a process loads vega and resvg; later ones do not.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from './stats.ts';

/** The name `pnpm bench` takes for this table. */
export const CHARTS = 'charts';

/** What packages/charts/bench.ts prints with --json. */
interface Timing {
  runs: number;
  importMs: number;
  svg: { firstMs: number; p50Ms: number; bytes: number };
  png: { firstMs: number; p50Ms: number; bytes: number };
}

export interface ChartsResult {
  processes: number;
  runs: number;
  timings: Timing[];
}

/** Run the charts timing in `processes` fresh processes of `runs` later charts each (the package must be built). */
export function benchCharts(o: {
  root: string;
  processes: number;
  runs: number;
  log: (line: string) => void;
}): ChartsResult {
  const dir = join(o.root, 'packages', 'charts');
  const timings: Timing[] = [];
  for (let round = 1; round <= o.processes; round++) {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'bench.ts', '--json', '--runs', String(o.runs)],
      { cwd: dir, encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`packages/charts/bench.ts failed:\n${run.stderr}`);
    const timing = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Timing;
    o.log(
      `  charts process ${round}/${o.processes}: first SVG ${timing.svg.firstMs.toFixed(1)} ms, ` +
        `first PNG ${timing.png.firstMs.toFixed(1)} ms`,
    );
    timings.push(timing);
  }
  return { processes: o.processes, runs: o.runs, timings };
}

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');

/** Every figure the table prints, by row; --smoke checks that each is a number. */
export function chartsFigures(result: ChartsResult): Record<string, number> {
  const of = (pick: (t: Timing) => number) => median(result.timings.map(pick));
  return {
    'import, ms': of((t) => t.importMs),
    'SVG first, ms': of((t) => t.svg.firstMs),
    'SVG later, ms': of((t) => t.svg.p50Ms),
    'PNG first, ms': of((t) => t.png.firstMs),
    'PNG later, ms': of((t) => t.png.p50Ms),
  };
}

/** The charts section of RESULTS.md (its markers are those of a server named `charts`). */
export function chartsSection(
  result: ChartsResult,
  meta: { machine: string; date: string; commit: string; command: string },
): string {
  const f = chartsFigures(result);
  const size = (pick: (t: Timing) => number) => median(result.timings.map(pick));
  return [
    `<!-- bench:${CHARTS} -->`,
    '## charts',
    '',
    `- Machine: ${meta.machine}`,
    `- Date: ${meta.date}; commit ${meta.commit}`,
    `- Method: \`${meta.command}\`: the burndown line chart of packages/charts' tests (600x300), drawn in ` +
      `${result.processes} fresh processes. First: the first chart of a process, loading vega and vega-lite ` +
      `(SVG) or resvg (PNG) included; later: the median of the next ${result.runs} in that process. Each ` +
      'figure is the median over the processes.',
    '',
    '| figure | first, ms | later, median ms | output |',
    '| --- | ---: | ---: | ---: |',
    `| \`import('@shipyard/charts')\` (loads no library) | ${ms(f['import, ms'] ?? Number.NaN)} |  |  |`,
    `| SVG, \`lineChart\` | ${ms(f['SVG first, ms'] ?? Number.NaN)} | ${ms(f['SVG later, ms'] ?? Number.NaN)} | ${size((t) => t.svg.bytes)} chars |`,
    `| PNG, \`svgToPng\` | ${ms(f['PNG first, ms'] ?? Number.NaN)} | ${ms(f['PNG later, ms'] ?? Number.NaN)} | ${size((t) => t.png.bytes)} bytes |`,
    `<!-- /bench:${CHARTS} -->`,
  ].join('\n');
}
