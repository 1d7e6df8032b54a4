// dist/index.cjs: the package as CommonJS, for server bundles, which require() their runtime dependencies.
// Its import() of vega, vega-lite and resvg stays: a CommonJS file loaded by Node can import ES modules.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.cjs',
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
