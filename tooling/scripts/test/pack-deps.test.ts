import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CHART_SIZE,
  drawChartIn,
  drawsCharts,
  runtimeWorkspaceDeps,
  workspacePackages,
} from '../pack-deps.mjs';

const here = fileURLToPath(new URL('..', import.meta.url));
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A workspace in a temporary folder with these package.json files, by path. */
function workspace(files: Record<string, Record<string, unknown>>): string {
  root = mkdtempSync(join(tmpdir(), 'pack-deps-'));
  for (const [path, pkg] of Object.entries(files)) {
    mkdirSync(join(root, path), { recursive: true });
    writeFileSync(join(root, path, 'package.json'), JSON.stringify(pkg));
  }
  return root;
}

describe('runtimeWorkspaceDeps', () => {
  const files = {
    'packages/core': { name: '@shipyard/core', dependencies: { zod: 'catalog:' } },
    'packages/charts': {
      name: '@shipyard/charts',
      dependencies: { vega: 'catalog:', '@shipyard/palette': 'workspace:*' },
    },
    'packages/palette': { name: '@shipyard/palette' },
    'packages/db': { name: '@shipyard/db', private: true },
    'servers/sprint': {
      name: '@shipyard/sprint',
      dependencies: { '@shipyard/charts': 'workspace:*', 'better-sqlite3': 'catalog:' },
      devDependencies: { '@shipyard/core': 'workspace:*', '@shipyard/db': 'workspace:*' },
    },
    'servers/tickets': {
      name: '@shipyard/tickets',
      dependencies: { 'better-sqlite3': 'catalog:' },
      devDependencies: { '@shipyard/core': 'workspace:*' },
    },
  };

  it('finds the workspace packages a server loads at run time, and theirs, once each', () => {
    const packages = workspacePackages(workspace(files));
    const sprint = packages.get('@shipyard/sprint')?.pkg;
    const tickets = packages.get('@shipyard/tickets')?.pkg;
    const found = runtimeWorkspaceDeps([sprint, tickets, sprint], packages);
    expect(found.map((dep: { pkg: { name: string } }) => dep.pkg.name)).toEqual([
      '@shipyard/charts',
      '@shipyard/palette',
    ]);
    expect(found[0].dir).toBe(join(root ?? '', 'packages/charts'));
    expect(drawsCharts(sprint)).toBe(true);
    // Bundled (a devDependency), core is not packed apart.
    expect(runtimeWorkspaceDeps([tickets], packages)).toEqual([]);
    expect(drawsCharts(tickets)).toBe(false);
  });

  it('refuses a run-time dependency that is private or not in the workspace', () => {
    const packages = workspacePackages(
      workspace({
        ...files,
        'servers/bad': { name: '@shipyard/bad', dependencies: { '@shipyard/db': 'workspace:*' } },
        'servers/lost': { name: '@shipyard/lost', dependencies: { '@shipyard/gone': 'workspace:^' } },
      }),
    );
    expect(() => runtimeWorkspaceDeps([packages.get('@shipyard/bad')?.pkg], packages)).toThrow(
      /@shipyard\/db, which is private/,
    );
    expect(() => runtimeWorkspaceDeps([packages.get('@shipyard/lost')?.pkg], packages)).toThrow(
      /@shipyard\/gone, which is not in the workspace/,
    );
  });
});

describe('drawChartIn', () => {
  it('requires @shipyard/charts from the folder, as a bundle does, and reads the PNG size', () => {
    // This package has @shipyard/charts (built) in its node_modules, as an installed server's folder has.
    expect(drawChartIn(here)).toEqual(CHART_SIZE);
  });

  it('fails where @shipyard/charts is not installed', () => {
    expect(() => drawChartIn(workspace({}))).toThrow(/Cannot find module '@shipyard\/charts'/);
  });
});
