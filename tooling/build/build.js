#!/usr/bin/env node
// shipyard-build: run in a server package. Writes
//   dist/index.js   the bin: one ESM file with core, zod, drizzle and the SDK inlined. Only the package's
//                   runtime `dependencies` (native modules such as better-sqlite3) stay external. The HTTP
//                   transport is split into dist/chunks/ and loaded only for --transport http.
//   dist/server.js  the definition module (for shipyard-lint and tests); imports stay imports.
// Then, from the definition itself, so neither can drift:
//   README.md       the reference section between the shipyard:reference markers
//   server.json     MCP Registry metadata (published packages, those with "mcpName")
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SETTINGS } from '@shipyard/core';
import { loadDefinition, renderReference, replaceReference } from '@shipyard/core/lint';
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
  // Less to read and parse at every start; the source map maps stack traces back (node --enable-source-maps).
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  // Bundled CommonJS code (ajv and friends) calls require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __shipyardRequire } from 'node:module'; const require = __shipyardRequire(import.meta.url);",
  },
});

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
