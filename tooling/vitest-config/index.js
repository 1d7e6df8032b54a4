import { defineConfig } from 'vitest/config';

/** Every package's vitest config: `export default vitestConfig()`; `test` overrides merge on top. */
export function vitestConfig(test = {}) {
  return defineConfig({
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // A poll waits for what a loaded machine (CI runs every package at once) may take seconds to deliver;
      // one that holds returns at once, so only a failing poll waits the whole time.
      expect: { poll: { timeout: 10_000 } },
      // The JSON report is what `pnpm test` sums into its final "N passed, N failed" line.
      reporters: ['default', ['json', { outputFile: '.vitest/results.json' }]],
      ...test,
    },
  });
}
