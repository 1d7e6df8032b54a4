import fs from 'node:fs';
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

/** Data directories already warned about in this process: each warning is written once. */
const warned = new Set<string>();

/** A path as a POSIX shell reads it back, so the suggested command can be pasted as is. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Creates `dir` with each missing folder above it, all 0700 whatever the umask (the XDG spec's mode for
 * the folders it creates); a folder that exists is left as it is.
 */
function makeFolders(dir: string): void {
  const first = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  // mkdir's mode is filtered by the umask: set each created folder, from the topmost down, to exactly 0700.
  let folder = first;
  for (const part of ['', ...path.relative(first, dir).split(path.sep).filter(Boolean)]) {
    folder = path.join(folder, part);
    fs.chmodSync(folder, 0o700);
  }
}

/**
 * Makes sure the data directory exists: created 0700 with any missing parent folder, or, existing, a
 * directory. An existing one that every user can write gets one warning on stderr, prefixed by `bin`.
 */
export function ensureDataDir(dir: string, bin = 'shipyard'): void {
  makeFolders(path.dirname(dir));
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // An existing directory (or one another process just made) is left as it was set up; a file is not one.
    const target = fs.statSync(dir, { throwIfNoEntry: false });
    if (!target) {
      // A relative target is relative to the link's folder; named from there, it can be created as named.
      const link = path.resolve(path.dirname(dir), fs.readlinkSync(dir));
      throw new Error(
        `The data directory ${dir} is a symbolic link to ${link}, which does not exist; create ${link} or pass --data-dir a directory`,
      );
    }
    if (!target.isDirectory()) {
      throw new Error(`The data directory ${dir} is a file, not a directory; pass --data-dir a directory`);
    }
    if ((target.mode & 0o002) !== 0 && !warned.has(dir)) {
      warned.add(dir);
      process.stderr.write(
        `${bin}: warning: the data directory ${dir} is writable by every user of this machine, who could ` +
          `replace or remove its database files; run \`chmod 700 ${shellWord(dir)}\` to keep them private\n`,
      );
    }
    return;
  }
  fs.chmodSync(dir, 0o700);
}
