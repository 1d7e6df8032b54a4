import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
const script = join(root, 'tooling/scripts/require-pnpm.mjs');

const prepack = (agent: string | undefined) =>
  spawnSync(process.execPath, [script], {
    env: { PATH: process.env.PATH, npm_package_name: '@shipyard/tickets', npm_config_user_agent: agent },
    encoding: 'utf8',
  });

describe('require-pnpm (the prepack of published packages)', () => {
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
      expect(pkg.scripts?.prepack, pkg.name).toBe('node ../../tooling/scripts/require-pnpm.mjs');
  });
});
