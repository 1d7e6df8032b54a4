#!/usr/bin/env node
// shipyard-build: run in a server package. Writes
//   dist/index.js   the bin: one ESM file with core, zod, drizzle and the SDK inlined. Only the package's
//                   runtime `dependencies` (native modules such as better-sqlite3) stay external. The HTTP
//                   transport is split into dist/chunks/ and loaded only for --transport http.
//   dist/server.js  the definition module (for shipyard-lint and tests); imports stay imports.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = Object.keys(pkg.dependencies ?? {});
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' };

rmSync('dist', { recursive: true, force: true });

await build({
  ...common,
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external,
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  // Bundled CommonJS code (ajv and friends) calls require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __shipyardRequire } from 'node:module'; const require = __shipyardRequire(import.meta.url);",
  },
});

await build({ ...common, entryPoints: { server: 'src/server.ts' }, outdir: 'dist', packages: 'external' });
