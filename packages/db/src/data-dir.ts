import os from 'node:os';
import path from 'node:path';

/** Directory name used under `$XDG_DATA_HOME` and `~/.local/share`. */
const APP_DIR = 'shipyard';

/** The value of `dataDir` that selects an in-memory database. */
export const MEMORY = ':memory:';

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function homeDir(env: NodeJS.ProcessEnv): string {
  return nonEmpty(env.HOME) ?? os.homedir();
}

/** Expands a leading `~` (host configs pass env values without a shell) and makes the path absolute. */
function normalize(dir: string, env: NodeJS.ProcessEnv): string {
  if (dir === MEMORY) return dir;
  if (dir === '~') return homeDir(env);
  if (dir.startsWith('~/')) return path.join(homeDir(env), dir.slice(2));
  return path.resolve(dir);
}

/**
 * Where Shipyard keeps its SQLite files. First match wins:
 *
 * 1. `dataDir` (e.g. from `--data-dir`), when given and not empty;
 * 2. `SHIPYARD_DATA_DIR`;
 * 3. `$XDG_DATA_HOME/shipyard` (only when `XDG_DATA_HOME` is absolute, as the XDG spec requires);
 * 4. `~/.local/share/shipyard`.
 *
 * A leading `~` is expanded and relative paths are resolved against the working directory.
 * `':memory:'` is returned unchanged.
 */
export function resolveDataDir(dataDir?: string, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = nonEmpty(dataDir) ?? nonEmpty(env.SHIPYARD_DATA_DIR);
  if (explicit !== undefined) return normalize(explicit, env);
  const xdg = nonEmpty(env.XDG_DATA_HOME);
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, APP_DIR);
  return path.join(homeDir(env), '.local', 'share', APP_DIR);
}
