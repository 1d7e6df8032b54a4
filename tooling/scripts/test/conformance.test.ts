import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, '..', 'conformance.mjs');
const shim = join(here, '..', 'conformance-node20.mjs');
const packageDir = dirname(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'),
);
const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  version: string;
  bin: { conformance: string };
};
const cli = join(packageDir, pkg.bin.conformance);

describe('pnpm conformance', () => {
  it('starts the conformance CLI on the Node that runs the tests, through the globSync shim', () => {
    const run = spawnSync(process.execPath, ['--import', shim, cli, '--version'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(pkg.version);
    expect(run.status).toBe(0);
  }, 60_000);

  it('refuses a server name that has no built bin, naming the built ones', () => {
    const run = spawnSync(process.execPath, [script, 'no-such-server'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no built server no-such-server');
  }, 60_000);
});
