// `pnpm --filter @shipyard/charts bench [--runs N] [--json]`: times drawing the burndown chart in this process.
// The first SVG includes loading vega and vega-lite, the first PNG loading resvg; later ones are the p50 of
// N more. It times the built package (pnpm build first).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { burndown } from './test/fixtures/data.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20' }, json: { type: 'boolean', default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number above 0');

async function time<T>(task: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const result = await task();
  return [performance.now() - start, result];
}

function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const [importMs, charts] = await time(() => import('./dist/index.js'));
const [firstSvgMs, svg] = await time(() => charts.lineChart(burndown));
const [firstPngMs, png] = await time(() => charts.svgToPng(svg));
const svgMs: number[] = [];
const pngMs: number[] = [];
for (let run = 0; run < runs; run++) {
  svgMs.push((await time(() => charts.lineChart(burndown)))[0]);
  pngMs.push((await time(() => charts.svgToPng(svg)))[0]);
}

const result = {
  runs,
  importMs,
  svg: { firstMs: firstSvgMs, p50Ms: median(svgMs), bytes: svg.length },
  png: { firstMs: firstPngMs, p50Ms: median(pngMs), bytes: png.byteLength },
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`import @shipyard/charts  ${ms(importMs)}`);
  console.log('         first       p50 of later   size');
  console.log(
    `SVG  ${ms(firstSvgMs).padStart(10)}  ${ms(result.svg.p50Ms).padStart(13)}   ${svg.length} chars`,
  );
  console.log(
    `PNG  ${ms(firstPngMs).padStart(10)}  ${ms(result.png.p50Ms).padStart(13)}   ${png.byteLength} bytes`,
  );
}
