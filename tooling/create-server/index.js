#!/usr/bin/env node
// pnpm create-server <name>: copy template/ to servers/<name>, fill in the names, add a changeset,
// link it into the workspace and build it, so that `pnpm --filter @shipyard/<name> test` passes as is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const NAME = /^[a-z][a-z0-9-]{1,30}$/;
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

/** The spellings of a server name the template uses. */
export function namesFor(name) {
  const words = name.split('-').filter(Boolean);
  return {
    __name__: name,
    __snake__: words.join('_'),
    __Pascal__: words.map((w) => w[0].toUpperCase() + w.slice(1)).join(''),
    __title__: words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' '),
  };
}

export function validateName(name, serversDir = join(root, 'servers')) {
  if (!name) return 'Give the server a name: pnpm create-server <name>';
  if (!NAME.test(name) || name.endsWith('-') || name.includes('--')) {
    return `"${name}" is not a valid server name: use 2-31 lower-case letters, digits and single dashes, starting with a letter (e.g. release-notes)`;
  }
  if (existsSync(join(serversDir, name))) return `servers/${name} already exists; pick another name`;
  return undefined;
}

function fill(text, names) {
  return Object.entries(names).reduce((out, [token, value]) => out.replaceAll(token, value), text);
}

function copyTemplate(from, to, names) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const target = join(to, fill(entry.name, names));
    if (entry.isDirectory()) copyTemplate(join(from, entry.name), target, names);
    else writeFileSync(target, fill(readFileSync(join(from, entry.name), 'utf8'), names));
  }
}

function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
  });
  if (result.status !== 0) {
    console.error(`\n${command} ${args.join(' ')} failed (exit ${result.status}).`);
    process.exit(result.status ?? 1);
  }
}

export const HELP = `Usage: pnpm create-server <name> [--no-install]

Copies tooling/create-server/template to servers/<name>, fills in the names, adds a changeset, then installs,
formats and builds the new package, so that its tests pass as generated.

  <name>        2-31 lower-case letters, digits and single dashes, starting with a letter (e.g. release-notes)
  --no-install  only write the files: no install, format or build
  -h, --help    this text`;

/**
 * The command line: `{ help: true }`, `{ error }` (a usage mistake, exit 2) or `{ name, skipInstall }`.
 * @param {string[]} argv
 * @param {string} [serversDir]
 */
export function parseCommandLine(argv, serversDir) {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  const unknown = argv.filter((arg) => arg.startsWith('-') && arg !== '--no-install');
  if (unknown.length > 0) return { error: `Unknown option ${unknown.join(', ')}; see --help` };
  const names = argv.filter((arg) => !arg.startsWith('-'));
  if (names.length > 1) return { error: `Give one server name, not ${names.length} (${names.join(', ')})` };
  const error = validateName(names[0], serversDir);
  return error ? { error } : { name: names[0], skipInstall: argv.includes('--no-install') };
}

function main(argv) {
  const command = parseCommandLine(argv);
  if (command.help) {
    console.log(HELP);
    return;
  }
  if (command.error) {
    console.error(command.error);
    process.exit(2);
  }
  const { name, skipInstall } = command;
  const names = namesFor(name);
  const target = join(root, 'servers', name);
  copyTemplate(join(here, 'template'), target, names);
  writeFileSync(
    join(root, '.changeset', `new-server-${name}.md`),
    `---\n'@shipyard/${name}': minor\n---\n\nNew server @shipyard/${name}.\n`,
  );
  console.log(`Created ${relative(process.cwd(), target) || '.'} (@shipyard/${name}, bin shipyard-${name}).`);
  if (!skipInstall) {
    run('pnpm', ['install', '--no-frozen-lockfile', '--prefer-offline']);
    // Names change line lengths: let the formatter settle the new files.
    run('pnpm', ['exec', 'biome', 'check', '--write', `servers/${name}`, `.changeset/new-server-${name}.md`]);
    run('pnpm', [
      'exec',
      'turbo',
      'run',
      'build',
      `--filter=@shipyard/${name}...`,
      '--output-logs=errors-only',
    ]);
  }
  console.log(`
Next:
  pnpm --filter @shipyard/${name} test      run its tests
  pnpm start ${name}                        serve it on stdio
  servers/${name}/src/tools/                add tools, one tool({ … }) per file (see CONTRIBUTING.md)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
