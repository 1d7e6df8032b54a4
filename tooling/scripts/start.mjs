#!/usr/bin/env node
// `pnpm start [server] [flags…]`: build one server, then run its bin with the flags (stdio by default).
// Build output goes to stderr so that stdout stays the MCP protocol.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const [server = 'example', ...flags] = process.argv.slice(2);
const manifest = join(root, 'servers', server, 'package.json');
if (!existsSync(manifest)) {
  console.error(`No server "${server}" in servers/. Try: pnpm start example`);
  process.exit(2);
}
// The bin as the package names it (dist/index.cjs, written by shipyard-build).
const bin = join(root, 'servers', server, Object.values(JSON.parse(readFileSync(manifest, 'utf8')).bin)[0]);

const build = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'build', `--filter=@shipyard/${server}...`, '--output-logs=errors-only'],
  {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
    env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
  },
);
if (build.status !== 0) process.exit(build.status ?? 1);

// The server itself says it serves on stdio (when stdin is a terminal); this adds what to try instead.
if (process.stdin.isTTY && !flags.includes('--transport')) {
  console.error(
    `Try \`pnpm demo\` for a scripted session, or \`pnpm start ${server} --transport http\` for HTTP.`,
  );
}
const child = spawn(process.execPath, [bin, ...flags], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
