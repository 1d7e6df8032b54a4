// What pack-smoke packs besides the servers: the workspace packages a packed server loads at run time
// (its `dependencies` with a workspace: version, such as @shipyard/charts), and the check that charts draw
// in the folder npm installed them into.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CHARTS = '@shipyard/charts';
/** The size pack-smoke asks the installed @shipyard/charts for: 300 wide, so 150 high from 600x300. */
export const CHART_SIZE = { width: 300, height: 150 };

/** Every package of the workspace (packages/*, servers/*, tooling/*) by name: its folder and package.json. */
export function workspacePackages(root) {
  const found = new Map();
  for (const group of ['packages', 'servers', 'tooling']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      if (pkg.name) found.set(pkg.name, { dir: join(dir, name), pkg });
    }
  }
  return found;
}

/**
 * The workspace packages these packages load at run time (`dependencies` with a `workspace:` version), and
 * what those load in turn, each once. A bundle leaves them out and `require()`s them, so npm must install
 * them beside the server: pack-smoke packs them too. Throws for one that is not in the workspace or is
 * private (it could never be installed from a registry).
 */
export function runtimeWorkspaceDeps(pkgs, packages) {
  const needed = new Map();
  const visit = (pkg) => {
    for (const [name, version] of Object.entries(pkg.dependencies ?? {})) {
      if (!String(version).startsWith('workspace:') || needed.has(name)) continue;
      const found = packages.get(name);
      if (!found) throw new Error(`${pkg.name} depends on ${name}, which is not in the workspace`);
      if (found.pkg.private) {
        throw new Error(
          `${pkg.name} depends at run time on ${name}, which is private, so no user can install it`,
        );
      }
      needed.set(name, found);
      visit(found.pkg);
    }
  };
  for (const pkg of pkgs) visit(pkg);
  return [...needed.values()];
}

/** Whether a package loads @shipyard/charts at run time. */
export const drawsCharts = (pkg) => Object.hasOwn(pkg.dependencies ?? {}, CHARTS);

// Required as a server bundle requires it (CommonJS), from the folder's own node_modules.
const DRAW = `
const charts = require(${JSON.stringify(CHARTS)});
(async () => {
  const svg = await charts.barChart({
    title: 'Velocity',
    x: { title: 'Sprint' },
    y: { title: 'Points' },
    series: [{ name: 'Completed', points: [{ x: 'S1', y: 21 }, { x: 'S2', y: 34 }] }],
  });
  const png = Buffer.from(await charts.svgToPng(svg, { width: ${CHART_SIZE.width} }));
  if (png.toString('latin1', 1, 4) !== 'PNG' || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  console.log(JSON.stringify({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/** Draw a bar chart with the @shipyard/charts installed in `folder`; the PNG's size from its header. */
export function drawChartIn(folder) {
  // Without NODE_PATH (pnpm's bin shims set it to the workspace's store): only the folder's own packages.
  const { NODE_PATH: _path, ...env } = process.env;
  const out = execFileSync(process.execPath, ['-e', DRAW], {
    cwd: folder,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out.trim());
}
