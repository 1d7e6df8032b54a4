#!/usr/bin/env node
// pnpm version-packages: `changeset version`, after making sure that a change to a library a server
// bundles into its bin (core, db) also releases that server. Changesets alone would not: servers list those
// libraries as devDependencies, because the published bin inlines them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Package names a changeset file releases (its front matter: `'@shipyard/core': minor`). */
export function releasedBy(markdown) {
  const front = /^---\n([\s\S]*?)\n---/.exec(markdown)?.[1] ?? '';
  return front
    .split('\n')
    .map((line) => /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line)?.[1])
    .filter(Boolean);
}

/**
 * Servers that bundle a released library but are not released themselves.
 * `servers`: [{ name, private, bundles: [package names in devDependencies] }].
 */
export function bundlerBumps(released, servers) {
  const set = new Set(released);
  return servers
    .filter((server) => !server.private && !set.has(server.name))
    .filter((server) => server.bundles.some((lib) => set.has(lib)))
    .map((server) => server.name)
    .sort();
}

const BUNDLED = ['@shipyard/core', '@shipyard/db'];

function main() {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dir = join(root, '.changeset');
  const released = readdirSync(dir)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .flatMap((file) => releasedBy(readFileSync(join(dir, file), 'utf8')));
  const servers = readdirSync(join(root, 'servers'))
    .map((name) => join(root, 'servers', name, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')))
    .map((pkg) => ({
      name: pkg.name,
      private: pkg.private === true,
      bundles: Object.keys(pkg.devDependencies ?? {}).filter((dep) => BUNDLED.includes(dep)),
    }));
  const bumps = bundlerBumps(released, servers);
  if (bumps.length > 0) {
    const libs = released.filter((name) => BUNDLED.includes(name));
    writeFileSync(
      join(dir, `bundled-${Date.now()}.md`),
      `---\n${bumps.map((name) => `'${name}': patch`).join('\n')}\n---\n\nBundles the new ${[...new Set(libs)].join(' and ')}.\n`,
    );
    console.log(`version-packages: also releasing ${bumps.join(', ')} (they bundle ${libs.join(', ')})`);
  }
  const result = spawnSync('pnpm', ['exec', 'changeset', 'version'], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
