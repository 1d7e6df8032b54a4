// `pnpm bench --smoke` runs end to end on the built example and tickets bins and prints every figure. It
// checks that the harness works, never how fast anything is.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const bench = fileURLToPath(new URL('../bench.mjs', import.meta.url));
const servers = ['example', 'tickets'];

test('the smoke run measures every figure of every scenario', { timeout: 180_000 }, () => {
  for (const server of servers) {
    const bin = fileURLToPath(new URL(`../../../servers/${server}/dist/index.cjs`, import.meta.url));
    expect(existsSync(bin), `${bin} is built (pnpm build)`).toBe(true);
  }
  const run = spawnSync(process.execPath, [bench, ...servers, '--smoke'], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  for (const server of servers) expect(run.stdout).toContain(`<!-- bench:${server} -->`);
  for (const row of [
    '`list_notes`',
    '`create_ticket`',
    '`get_ticket`',
    '`search_tickets`',
    '`LIKE` scan',
    'data files, MiB',
  ]) {
    expect(run.stdout).toContain(row);
  }
  expect(run.stdout).not.toContain('n/a');
});

test('the smoke run times a first and a later chart', { timeout: 120_000 }, () => {
  const run = spawnSync(process.execPath, [bench, 'charts', '--smoke'], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain('<!-- bench:charts -->');
  expect(run.stdout).toMatch(/\| SVG, `lineChart` \| \d+\.\d \| \d+\.\d \| \d+ chars \|/);
  expect(run.stdout).toMatch(/\| PNG, `svgToPng` \| \d+\.\d \| \d+\.\d \| \d+ bytes \|/);
  expect(run.stdout).not.toContain('bench:example');
});
