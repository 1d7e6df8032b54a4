// What the repository scripts share: the servers there are, and a turbo build that keeps stdout clean.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** The servers in servers/ (each folder with a package.json), by name. */
export function serverNames() {
  const dir = join(root, 'servers');
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'package.json')))
    .sort();
}

/** The line that answers a server name that is not in servers/: the names there are. */
export function unknownServer(name, command) {
  const names = serverNames();
  return `No server "${name}" in servers/. There are: ${names.join(', ')}. Try: ${command} ${names.includes('tickets') ? 'tickets' : names[0]}`;
}

/**
 * Build packages and what they depend on (turbo filters such as `@shipyard/tickets...`). Output goes to
 * stderr, so stdout stays a server's protocol or a script's own report. Returns whether the build passed.
 */
export function build(filters) {
  const run = spawnSync(
    'pnpm',
    [
      'exec',
      'turbo',
      'run',
      'build',
      ...filters.map((filter) => `--filter=${filter}`),
      '--output-logs=errors-only',
    ],
    {
      cwd: root,
      stdio: ['ignore', process.stderr, process.stderr],
      env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
    },
  );
  return run.status === 0;
}
