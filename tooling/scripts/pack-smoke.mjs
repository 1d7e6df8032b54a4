#!/usr/bin/env node
// pack-smoke [server…]: what a user gets from `npx -y @shipyard/<name>`. Pack each published server
// (default: every servers/* package that is not private), install the tarballs with npm into an empty
// folder outside the workspace, spawn each installed bin over stdio and complete initialize, tools/list
// and one tool call (package.json "shipyard.smoke": { "tool", "arguments" }). The workspace packages a server
// loads at run time (@shipyard/charts) are packed and installed with it; when a server draws charts, the
// installed @shipyard/charts must draw a PNG of the asked size in that folder. It builds what it packs first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CHART_SIZE,
  drawChartIn,
  drawsCharts,
  runtimeWorkspaceDeps,
  workspacePackages,
} from './pack-deps.mjs';
import { build, root, serverNames, unknownServer } from './workspace.mjs';

const wanted = process.argv.slice(2).filter((arg, index) => index > 0 || arg !== '--');
for (const name of wanted.filter((name) => !serverNames().includes(name))) {
  console.error(unknownServer(name, 'pnpm pack-smoke'));
  process.exit(2);
}
const servers = readdirSync(join(root, 'servers'))
  .filter((name) => existsSync(join(root, 'servers', name, 'package.json')))
  .map((name) => ({ name, dir: join(root, 'servers', name) }))
  .map((s) => ({ ...s, pkg: JSON.parse(readFileSync(join(s.dir, 'package.json'), 'utf8')) }))
  .filter((s) => (wanted.length > 0 ? wanted.includes(s.name) : !s.pkg.private));

if (servers.length === 0) {
  console.log('pack-smoke: no published server to check');
  process.exit(0);
}

let dependencies;
try {
  dependencies = runtimeWorkspaceDeps(
    servers.map((server) => server.pkg),
    workspacePackages(root),
  );
} catch (error) {
  console.error(`pack-smoke: ${error.message}`);
  process.exit(1);
}

// The servers' prepack builds each one too; the client below needs @shipyard/testing built.
if (!build([...servers.map((server) => `${server.pkg.name}...`), '@shipyard/testing'])) {
  console.error('pack-smoke: the build failed (above), so there is nothing to pack');
  process.exit(1);
}
const { callOk, spawnServer } = await import('@shipyard/testing');

/** Whether a file exists within five seconds (the server writes its code cache as it exits). */
async function appears(file) {
  for (let waited = 0; waited < 5_000; waited += 100) {
    if (existsSync(file)) return true;
    await sleep(100);
  }
  return false;
}

const work = mkdtempSync(join(tmpdir(), 'shipyard-pack-'));
const packs = join(work, 'packs');
const app = join(work, 'app');
let failures = 0;
try {
  const tarballs = [];
  for (const server of servers) {
    const before = new Set(existsSync(packs) ? readdirSync(packs) : []);
    execFileSync('pnpm', ['pack', '--pack-destination', packs], {
      cwd: server.dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = join(packs, readdirSync(packs).find((file) => !before.has(file)) ?? '');
    tarballs.push(tarball);
    // What a user downloads: the bin, and no source map (several times the size of the code it maps).
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    const bin = Object.values(server.pkg.bin)[0].replace(/^\.\//, 'package/');
    const maps = files.filter((file) => file.endsWith('.map'));
    const problems = [
      ...(files.includes(bin) ? [] : [`has no ${bin}`]),
      ...maps.map((map) => `ships ${map}`),
    ];
    if (problems.length > 0) {
      failures++;
      console.error(`pack-smoke: ${server.pkg.name} FAILED: its tarball ${problems.join(' and ')}`);
    }
  }
  for (const dependency of dependencies) {
    const before = new Set(readdirSync(packs));
    execFileSync('pnpm', ['pack', '--pack-destination', packs], {
      cwd: dependency.dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    tarballs.push(join(packs, readdirSync(packs).find((file) => !before.has(file)) ?? ''));
  }
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pack-smoke', private: true }));
  console.log(`pack-smoke: npm install ${tarballs.map((t) => t.split('/').pop()).join(' ')}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
    cwd: app,
    stdio: 'inherit',
  });
  if (servers.some((server) => drawsCharts(server.pkg))) {
    try {
      const size = drawChartIn(app);
      if (size.width !== CHART_SIZE.width || size.height !== CHART_SIZE.height) {
        throw new Error(
          `drew a ${size.width}x${size.height} PNG, asked for ${CHART_SIZE.width}x${CHART_SIZE.height}`,
        );
      }
      console.log(
        `pack-smoke: @shipyard/charts draws a ${size.width}x${size.height} PNG where npm installed it`,
      );
    } catch (error) {
      failures++;
      console.error(`pack-smoke: @shipyard/charts FAILED: ${error.stderr || error.message}`);
    }
  }
  for (const server of servers) {
    const bin = join(app, 'node_modules', server.pkg.name, server.pkg.bin[`shipyard-${server.name}`]);
    const smoke = server.pkg.shipyard?.smoke;
    const dataDir = join(work, `data-${server.name}`);
    // The bin keeps V8's code cache next to the bundle: never shipped, written as a start that served exits.
    const cache = join(dirname(bin), 'bundle.cjs.cache');
    if (existsSync(cache)) {
      failures++;
      console.error(`pack-smoke: ${server.pkg.name} FAILED: the package ships ${cache}`);
    }
    const stderr = [];
    const client = await spawnServer(bin, ['--data-dir', dataDir], { stderr });
    try {
      const version = client.getServerVersion();
      if (version?.version !== server.pkg.version)
        throw new Error(`version ${version?.version}, want ${server.pkg.version}`);
      const { tools } = await client.listTools();
      if (!smoke) throw new Error('package.json has no "shipyard.smoke": { "tool", "arguments" }');
      if (!tools.some((t) => t.name === smoke.tool)) throw new Error(`tools/list has no ${smoke.tool}`);
      await callOk(client, smoke.tool, smoke.arguments ?? {});
      console.log(
        `pack-smoke: ${server.pkg.name}@${server.pkg.version} ok (${tools.length} tools, called ${smoke.tool})`,
      );
      if (drawsCharts(server.pkg)) {
        // The installed server itself draws: each PNG resource it lists reads as a PNG.
        const { resources } = await client.listResources();
        for (const { uri } of resources.filter((r) => r.mimeType === 'image/png')) {
          const [content] = (await client.readResource({ uri })).contents;
          const size = pngSize(Buffer.from(content?.blob ?? '', 'base64'));
          if (!size) throw new Error(`${uri} is not a PNG`);
          console.log(`pack-smoke: ${server.pkg.name} drew ${uri}, a ${size.width}x${size.height} PNG`);
        }
      }
    } catch (error) {
      failures++;
      console.error(`pack-smoke: ${server.pkg.name} FAILED: ${error.message}\n${stderr.join('')}`);
    } finally {
      await client.close();
    }
    if (!(await appears(cache))) {
      failures++;
      console.error(`pack-smoke: ${server.pkg.name} FAILED: no code cache at ${cache} after the first start`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failures > 0 ? 1 : 0);

/** A PNG's width and height from its IHDR chunk, or undefined when the bytes are not a PNG. */
function pngSize(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((byte, i) => bytes[i] !== byte)) return undefined;
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
