#!/usr/bin/env node
// `pnpm start [server] [flags…]`: build one server, then run its bin with the flags (stdio by default).
// Build output goes to stderr so that stdout stays the MCP protocol.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, root, serverNames, unknownServer } from './workspace.mjs';

// pnpm passes a `--` through (`pnpm start tickets -- --user ana`): before the name or the flags, it only
// separates them from pnpm's own.
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const [server = 'example', ...flags] = args;
if (flags[0] === '--') flags.shift();
if (!serverNames().includes(server)) {
  console.error(unknownServer(server, 'pnpm start'));
  process.exit(2);
}
const manifest = join(root, 'servers', server, 'package.json');
// The bin as the package names it (dist/index.cjs, written by shipyard-build).
const bin = join(root, 'servers', server, Object.values(JSON.parse(readFileSync(manifest, 'utf8')).bin)[0]);

if (!build([`@shipyard/${server}...`])) process.exit(1);

// The server itself says it serves on stdio (when stdin is a terminal); this adds what to try instead.
if (process.stdin.isTTY && !flags.includes('--transport')) {
  console.error(
    `Try \`pnpm demo ${server}\` for a scripted session, or \`pnpm start ${server} --transport http\` for HTTP.`,
  );
}
const child = spawn(process.execPath, [bin, ...flags], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
