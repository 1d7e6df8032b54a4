#!/usr/bin/env node
// The `start` script of each server package (`pnpm --filter @shipyard/<name> start [flags…]`): run the
// package's built bin in this process, or, when it is not built, say how to build it.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const bin = join(dir, Object.values(pkg.bin ?? {})[0] ?? 'dist/index.cjs');
if (!existsSync(bin)) {
  console.error(
    `${pkg.name} is not built (no ${bin.slice(dir.length + 1)}): run \`pnpm build\` at the repository root, ` +
      `or \`pnpm start ${basename(dir)}\` there, which builds it and then starts it.`,
  );
  process.exit(1);
}
// The bin reads its flags from process.argv.slice(2), which here are the ones given to this script.
createRequire(import.meta.url)(bin);
