#!/usr/bin/env node
// The prepack of each package (pnpm pack, pnpm publish and so pnpm release run it in the package's folder).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from './workspace.mjs';

const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8'));
const name = pkg.name ?? process.env.npm_package_name ?? 'This package';

// Its package.json names versions with pnpm's `catalog:` and `workspace:`, which pnpm pack and pnpm publish
// (and so `pnpm release`) replace with the versions they stand for; npm pack or npm publish would ship them
// as they are, in a package that does not install.
const agent = process.env.npm_config_user_agent ?? '';
if (!agent.startsWith('pnpm/')) {
  const tool = agent.split('/')[0] || 'another tool';
  console.error(
    `${name} is packed with pnpm (pnpm pack here, or pnpm release at the root): its package.json names ` +
      `versions as catalog: and workspace:, which only pnpm replaces, so ${tool} would pack a package that ` +
      'does not install.',
  );
  process.exit(1);
}

// The tarball holds dist/ as it is: build it first (turbo answers from its cache when nothing changed), so
// that an unbuilt or stale folder is never packed.
if (!build([`${name}...`])) {
  console.error(`${name} is not packed: its build failed (above).`);
  process.exit(1);
}

/** The files the package names as its bins and entry points. */
const entries = (value) =>
  typeof value === 'string' ? [value] : Object.values(value ?? {}).flatMap((inner) => entries(inner));
const missing = [...entries(pkg.bin), ...entries(pkg.exports), ...entries(pkg.main)].filter(
  (file) => !existsSync(join(process.cwd(), file)),
);
if (missing.length > 0) {
  console.error(`${name} is not packed: the build left out ${missing.join(', ')}.`);
  process.exit(1);
}
