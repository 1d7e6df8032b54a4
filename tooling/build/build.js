#!/usr/bin/env node
// shipyard-build: run in a server package. Writes
//   dist/bundle.cjs the server: one CommonJS file with core, zod, drizzle and the SDK inlined. Only the
//                   package's runtime `dependencies` (native modules such as better-sqlite3) stay external.
//   dist/index.cjs  the bin (loader.cjs): runs bundle.cjs through V8's code cache, which it keeps next to it
//                   in bundle.cjs.cache, so that a start after one that served a client skips most of
//                   compiling the bundle.
//   dist/server.js  the definition module (for shipyard-lint and tests); imports stay imports.
// Then, from the definition itself, so neither can drift:
//   README.md       the reference section between the shipyard:reference markers
//   server.json     MCP Registry metadata (published packages, those with "mcpName")
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SETTINGS } from '@shipyard/core';
import { loadDefinition, renderReference, replaceReference } from '@shipyard/core/lint';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = Object.keys(pkg.dependencies ?? {});
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' };

rmSync('dist', { recursive: true, force: true });

/**
 * zod's `z.locales` namespace holds the error messages of every language zod speaks, for
 * `z.config(z.locales.xx())`: a large part of a bundle, and a namespace export that no bundler can prune.
 * Servers speak English, which zod loads as its default on its own: `z.locales` keeps only `en`.
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

// CommonJS, because V8's code cache is offered for scripts (node:vm) and not, on Node 20, for ES modules;
// so the runtime `dependencies` left outside the bundle must load with require(), as native addons do.
// One file: the HTTP transport is inlined, but like every module it only runs when first imported
// (--transport http), and with the code cache its size costs a stdio start next to nothing.
await build({
  ...common,
  format: 'cjs',
  entryPoints: { bundle: 'src/index.ts' },
  outExtension: { '.js': '.cjs' },
  outdir: 'dist',
  external,
  plugins: [englishOnly],
  // Less to read and parse at a first start; the source map maps stack traces back (node --enable-source-maps).
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  // import.meta does not exist in CommonJS: the entry's `new URL('../drizzle', import.meta.url)` gets the
  // bundle's own URL, and any other use of import.meta fails the build instead of being undefined.
  define: { 'import.meta.url': '__shipyardUrl' },
  logOverride: { 'empty-import-meta': 'error' },
  // "use strict" first: esbuild writes its own after the banner, where it would not count.
  banner: { js: `"use strict";var __shipyardUrl = require('node:url').pathToFileURL(__filename).href;` },
});
const bundle = readFileSync('dist/bundle.cjs', 'latin1');
// The loader reads the bundle as latin1 (the fastest decoding); esbuild escapes non-ASCII text by default.
if (/[\u0080-\uffff]/.test(bundle))
  throw new Error('dist/bundle.cjs is not ASCII: the loader would misread it');
if (!/^(#!.*\n)?"use strict";/.test(bundle)) throw new Error('dist/bundle.cjs does not start "use strict"');
// The loader compiles the bundle as a script, which has no way to import() a module on Node 20.
if (/\bimport\(/.test(bundle)) throw new Error('dist/bundle.cjs calls import(): load it with require()');
// A #! line is only allowed first in a file; the loader wraps the bundle in a function. Blank it (lines kept).
if (bundle.startsWith('#!')) writeFileSync('dist/bundle.cjs', bundle.replace(/^#!.*/, ''), 'latin1');
copyFileSync(new URL('./loader.cjs', import.meta.url), 'dist/index.cjs');
chmodSync('dist/index.cjs', 0o755);

await build({ ...common, entryPoints: { server: 'src/server.ts' }, outdir: 'dist', packages: 'external' });

const definition = await loadDefinition(resolve('dist/server.js'), pkg.name);

if (existsSync('README.md')) {
  const readme = readFileSync('README.md', 'utf8');
  const updated = replaceReference(readme, renderReference(definition));
  if (updated !== readme) writeFileSync('README.md', updated);
}

if (pkg.mcpName) {
  const serverJson = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json',
    name: pkg.mcpName,
    title: definition.title ?? pkg.name,
    description: pkg.description,
    version: pkg.version,
    packages: [
      {
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: 'stdio' },
        environmentVariables: SETTINGS.filter((setting) => setting.env).map((setting) => ({
          name: setting.env,
          description: setting.description,
          isRequired: false,
          isSecret: setting.env === 'SHIPYARD_HTTP_TOKEN',
        })),
      },
    ],
  };
  writeFileSync('server.json', `${JSON.stringify(serverJson, null, 2)}\n`);
}
