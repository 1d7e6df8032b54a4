import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerDefinition } from '../define.js';

/** Finding and loading the servers of a workspace without their dependencies (for the linter and docs). */
export interface ServerPackage {
  /** Directory name under servers/. */
  name: string;
  /** Absolute path of the built definition module. */
  definition: string;
}

export function findRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml in ${from} or above; pass --root DIR`);
  }
}

export function findServers(root: string): ServerPackage[] {
  const serversDir = join(root, 'servers');
  if (!existsSync(serversDir)) return [];
  return readdirSync(serversDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(serversDir, entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort()
    .flatMap((name) => {
      const pkg = JSON.parse(readFileSync(join(serversDir, name, 'package.json'), 'utf8'));
      const definition: unknown = pkg.shipyard?.definition;
      return typeof definition === 'string'
        ? [{ name, definition: resolve(serversDir, name, definition) }]
        : [];
    });
}

/** Stands in for deps: definitions are built without a database, so any use of deps fails clearly. */
function unavailableDeps(server: string): object {
  const fail = (what: string): never => {
    throw new Error(
      `${what} while linting ${server}; shipyard-lint loads definitions without dependencies, ` +
        'so use deps only inside handlers and callbacks, not while building the definition',
    );
  };
  return new Proxy(
    {},
    {
      get: (_target, key) => fail(`deps.${String(key)} was read`),
      has: (_target, key) => fail(`deps.${String(key)} was checked`),
      set: (_target, key) => fail(`deps.${String(key)} was assigned`),
      ownKeys: () => fail('the keys of deps were listed'),
    },
  );
}

function isDefinition(value: unknown): value is ServerDefinition {
  const candidate = value as Partial<ServerDefinition> | undefined;
  return typeof candidate?.name === 'string' && Array.isArray(candidate.tools);
}

/**
 * Import a built definition module. Its default export is a ServerDefinition or a factory (deps) => definition;
 * a factory gets a stand-in for deps that throws when touched.
 */
export async function loadDefinition(
  path: string,
  server: string,
  root = process.cwd(),
): Promise<ServerDefinition> {
  const file = relative(root, path);
  if (!existsSync(path)) throw new Error(`${file} does not exist; run \`pnpm build\` first`);
  const exported: unknown = (await import(pathToFileURL(path).href)).default;
  let definition: unknown = exported;
  if (typeof exported === 'function') {
    const deps = unavailableDeps(server);
    definition = { ...(await exported(deps)), deps };
  }
  if (!isDefinition(definition)) {
    throw new Error(
      `the default export of ${file} is neither a ServerDefinition nor a factory (deps) => ServerDefinition`,
    );
  }
  return definition;
}
