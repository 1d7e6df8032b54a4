import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const hooks = new URL('./fixtures/trace-loads.mjs', import.meta.url).href;
const folder = mkdtempSync(join(tmpdir(), 'charts-lazy-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const heavy = /\/node_modules\/(vega|vega-lite|@resvg\/resvg-js)\//;
const CHART = `{ title: 'T', x: { title: 'X' }, y: { title: 'Y' }, series: [{ name: 'A', points: [{ x: 'a', y: 1 }] }] }`;

/**
 * Runs a script in a child process (vitest has its own module graph) that traces every ES module loaded.
 * The script prints JSON; `loaded()` in it gives the URLs loaded so far.
 */
let runs = 0;
function run(args: string[], script: string): Record<string, unknown> {
  const trace = join(folder, `loaded-${++runs}.txt`);
  writeFileSync(trace, '');
  const register = `import { register } from 'node:module'; register(${JSON.stringify(hooks)});`;
  const loaded = `const loaded = () => require('node:fs').readFileSync(process.env.SHIPYARD_TRACE_FILE, 'utf8').split('\\n').filter(Boolean);`;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      ...args,
      '-e',
      `${loaded}\n${script}`,
    ],
    { cwd: packageDir, env: { ...process.env, SHIPYARD_TRACE_FILE: trace } },
  );
  expect(child.status, child.stderr.toString()).toBe(0);
  return JSON.parse(child.stdout.toString());
}

it('importing the package loads neither vega nor resvg; drawing a chart does', () => {
  const dist = new URL('../dist/index.js', import.meta.url).href;
  const result = run(
    ['--input-type=module'],
    `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const charts = await import(${JSON.stringify(dist)});
const afterImport = loaded();
await charts.svgToPng(await charts.barChart(${CHART}));
console.log(JSON.stringify({ afterImport, afterDraw: loaded() }));`,
  ) as { afterImport: string[]; afterDraw: string[] };
  expect(result.afterImport).toContain(dist);
  expect(result.afterImport.filter((url) => heavy.test(url))).toEqual([]);
  // The control: the trace does see them once a chart is drawn.
  const drawn = result.afterDraw.filter((url) => heavy.test(url));
  expect(drawn.some((url) => url.includes('/node_modules/vega/'))).toBe(true);
  expect(drawn.some((url) => url.includes('/node_modules/vega-lite/'))).toBe(true);
  expect(drawn.some((url) => url.includes('/node_modules/@resvg/resvg-js/'))).toBe(true);
});

// Server bundles are CommonJS and require() the package: dist/index.cjs, which must be as lazy.
it('the CommonJS entry is as lazy, and draws through import() from CommonJS', () => {
  const result = run(
    [],
    `const charts = require('@shipyard/charts');
const entry = Object.keys(require.cache).filter((file) => file.includes('charts'));
// A while for an import() started at require time to show in the trace.
setTimeout(() => {
  const afterRequire = loaded();
  charts.barChart(${CHART}).then((svg) => charts.svgToPng(svg)).then((png) =>
    console.log(JSON.stringify({ entry, afterRequire, afterDraw: loaded(), png: png.byteLength })));
}, 1000);`,
  ) as { entry: string[]; afterRequire: string[]; afterDraw: string[]; png: number };
  expect(result.entry).toEqual([fileURLToPath(new URL('../dist/index.cjs', import.meta.url))]);
  expect(result.afterRequire.filter((url) => heavy.test(url))).toEqual([]);
  expect(result.afterDraw.filter((url) => heavy.test(url)).length).toBeGreaterThanOrEqual(3);
  expect(result.png).toBeGreaterThan(1000);
});
