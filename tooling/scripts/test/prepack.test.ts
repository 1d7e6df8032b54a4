import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
const script = join(root, 'tooling/scripts/prepack.mjs');

const prepack = (agent: string | undefined) =>
  spawnSync(process.execPath, [script], {
    cwd: join(root, 'servers/tickets'),
    env: { PATH: process.env.PATH, npm_package_name: '@shipyard/tickets', npm_config_user_agent: agent },
    encoding: 'utf8',
  });

describe('prepack (of every package and the server template)', () => {
  it('lets pnpm pack, and stops npm or anything else, saying why', () => {
    expect(prepack('pnpm/12.4.2 npm/? node/? linux x64').status).toBe(0);
    for (const agent of ['npm/11.19.1 node/v20.20.2 linux x64 workspaces/false', 'yarn/4.0.0', undefined]) {
      const run = prepack(agent);
      expect(run.status, agent).toBe(1);
      expect(run.stderr).toContain('@shipyard/tickets is packed with pnpm');
      expect(run.stderr).toContain('catalog: and workspace:');
    }
    expect(prepack('npm/11.19.1 node/v20.20.2').stderr).toContain('so npm would pack');
  });

  it('is the prepack of every published package and of the server template', () => {
    const dirs = ['packages', 'servers'].flatMap((group) =>
      readdirSync(join(root, group)).map((name) => join(root, group, name)),
    );
    const published = dirs
      .filter((dir) => existsSync(join(dir, 'package.json')))
      .map((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')))
      .filter((pkg) => !pkg.private);
    expect(published.map((pkg) => pkg.name)).toEqual(
      expect.arrayContaining(['@shipyard/core', '@shipyard/db', '@shipyard/testing', '@shipyard/tickets']),
    );
    const template = JSON.parse(
      readFileSync(join(root, 'tooling/create-server/template/package.json'), 'utf8'),
    );
    for (const pkg of [...published, template])
      expect(pkg.scripts?.prepack, pkg.name).toBe('node ../../tooling/scripts/prepack.mjs');
  });

  it('is the prepack of every server package, the private ones too', () => {
    for (const name of readdirSync(join(root, 'servers'))) {
      const file = join(root, 'servers', name, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8'));
      expect(pkg.scripts?.prepack, pkg.name).toBe('node ../../tooling/scripts/prepack.mjs');
    }
  });

  it('packs a server built, with its bin, and leaves the source maps out', () => {
    const destination = mkdtempSync(join(tmpdir(), 'shipyard-pack-'));
    try {
      const pack = spawnSync('pnpm', ['pack', '--pack-destination', destination], {
        cwd: join(root, 'servers/example'),
        encoding: 'utf8',
      });
      expect(pack.status, pack.stderr).toBe(0);
      const [tarball] = readdirSync(destination);
      const files = execFileSync('tar', ['tzf', join(destination, tarball ?? '')], { encoding: 'utf8' })
        .trim()
        .split('\n');
      expect(files).toEqual(expect.arrayContaining(['package/dist/index.cjs', 'package/dist/bundle.cjs']));
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    } finally {
      rmSync(destination, { recursive: true, force: true });
    }
  }, 120_000);
});
