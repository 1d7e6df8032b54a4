import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const dist = new URL('../dist/index.js', import.meta.url).href;
const hooks = new URL('./fixtures/trace-loads.mjs', import.meta.url).href;
const folder = mkdtempSync(join(tmpdir(), 'charts-lazy-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// In a child process (vitest has its own module graph): the ES modules loaded after importing the built
// package, and after drawing one chart as PNG.
const script = `
import { readFileSync } from 'node:fs';
const loaded = () => readFileSync(process.env.SHIPYARD_TRACE_FILE, 'utf8').split('\\n').filter(Boolean);
const charts = await import(${JSON.stringify(dist)});
const afterImport = loaded();
await charts.svgToPng(await charts.barChart({ title: 'T', x: { title: 'X' }, y: { title: 'Y' },
  series: [{ name: 'A', points: [{ x: 'a', y: 1 }] }] }));
console.log(JSON.stringify({ afterImport, afterDraw: loaded() }));
`;

const heavy = /\/node_modules\/(vega|vega-[a-z-]+|d3-[a-z-]+|@resvg\/[a-z-]+)\//;

it('importing the package loads neither vega nor resvg; drawing a chart does', () => {
  const trace = join(folder, 'loaded.txt');
  const register = `import { register } from 'node:module'; register(${JSON.stringify(hooks)});`;
  const child = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
    {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, SHIPYARD_TRACE_FILE: trace },
    },
  );
  expect(child.status, child.stderr.toString()).toBe(0);
  const { afterImport, afterDraw } = JSON.parse(child.stdout.toString()) as {
    afterImport: string[];
    afterDraw: string[];
  };
  expect(afterImport).toContain(dist);
  expect(afterImport.filter((url) => heavy.test(url))).toEqual([]);
  // The control: the trace does see them once a chart is drawn.
  const drawn = afterDraw.filter((url) => heavy.test(url));
  expect(drawn.some((url) => url.includes('/node_modules/vega/'))).toBe(true);
  expect(drawn.some((url) => url.includes('/node_modules/vega-lite/'))).toBe(true);
  expect(drawn.some((url) => url.includes('/node_modules/@resvg/resvg-js/'))).toBe(true);
});
