#!/usr/bin/env node
// `pnpm demo [server]`: build a server (tickets unless another is named), then drive it over stdio as a host
// would, printing each request and a short form of its answer, and return. The server's database lives in
// a temporary folder, removed at the end.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, root, serverNames, unknownServer } from './workspace.mjs';

// pnpm passes a `--` through (`pnpm demo -- tickets`): it only separates the name from pnpm's flags.
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const [name = 'tickets', ...rest] = args;
if (!serverNames().includes(name)) {
  console.error(unknownServer(name, 'pnpm demo'));
  process.exit(2);
}
if (rest.length > 0) {
  console.error(`pnpm demo takes one server name, not ${args.length}: pnpm demo ${name}`);
  process.exit(2);
}
if (!build([`@shipyard/${name}...`, '@shipyard/testing'])) process.exit(1);

/** JSON as a host receives it, one line per field or item where one line would be long. */
function json(value, indent = '') {
  const line = JSON.stringify(value);
  if (value === null || typeof value !== 'object' || indent.length + line.length <= 100) return line;
  const inner = `${indent}  `;
  const lines = Array.isArray(value)
    ? value.map((item) => inner + json(item, inner))
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${json(item, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.join(',\n')}\n${indent}${close}`;
}

/** The first lines of a text, each cut at 120 characters, and how many more lines there are. */
function clip(text, count) {
  const lines = text.trimEnd().split('\n');
  const shown = lines.slice(0, count).map((line) => (line.length > 120 ? `${line.slice(0, 119)}…` : line));
  return lines.length <= count
    ? shown.join('\n')
    : `${shown.join('\n')}\n… (${lines.length - count} more lines)`;
}

const request = (method, params) =>
  console.log(`\n→ ${method}${params === undefined ? '' : ` ${JSON.stringify(params)}`}`);
const answer = (text) => console.log(`← ${text.replaceAll('\n', '\n  ')}`);

const { spawnServer } = await import('@shipyard/testing');
const pkg = JSON.parse(readFileSync(join(root, 'servers', name, 'package.json'), 'utf8'));
const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-demo-'));
const stderr = [];
/** @type {Awaited<ReturnType<typeof spawnServer>> | undefined} */
let client;

const session = {
  async call(tool, args) {
    request('tools/call', { name: tool, arguments: args });
    const result = await client.callTool({ name: tool, arguments: args });
    const text = result.content?.find((part) => part.type === 'text')?.text ?? '';
    answer(result.isError ? `error ${text}` : json(result.structuredContent ?? text));
    return result.structuredContent;
  },
  async read(uri, lines = 12) {
    request('resources/read', { uri });
    const [content] = (await client.readResource({ uri })).contents;
    answer(clip(content?.text ?? '', lines));
  },
  async complete(ref, argument) {
    request('completion/complete', { ref, argument });
    answer(json((await client.complete({ ref, argument })).completion.values));
  },
  async prompt(prompt, args) {
    request('prompts/get', { name: prompt, arguments: args });
    const { messages } = await client.getPrompt({ name: prompt, arguments: args });
    answer(
      messages
        .map(({ role, content }) =>
          content.type === 'text'
            ? `${role}: ${clip(content.text, 3)}`
            : `${role}: (${content.type} ${content.resource?.uri ?? ''}, attached)`,
        )
        .join('\n'),
    );
  },
};

// What each server's session does after initialize and tools/list; a server without one calls the tool
// its package.json names for the pack smoke test.
const scenarios = {
  async tickets({ call, read, prompt }) {
    await call('create_project', { key: 'SHIP', name: 'Shipyard', description: 'The MCP servers' });
    await call('create_ticket', {
      project: 'SHIP',
      title: 'Search crashes on an empty query',
      type: 'bug',
      priority: 'high',
      labels: ['search'],
    });
    await call('create_ticket', {
      project: 'SHIP',
      title: 'Show a scripted session in the quick start',
      type: 'feature',
      assignee: 'me',
      labels: ['docs'],
    });
    await call('search_tickets', { query: 'search crash', status: ['backlog'] });
    await read('tickets://SHIP-1');
    await prompt('triage-ticket', { key: 'SHIP-1' });
  },
  async example({ call, read, complete, prompt }) {
    await call('save_note', {
      title: 'Release plan',
      body: 'Ship the tickets server first.',
      tags: ['release'],
    });
    await call('save_note', { title: 'Retro notes', tags: ['team'] });
    await call('list_notes', { tag: 'release' });
    await call('save_note', { slug: 'release-plan', body: 'Changed elsewhere', expected_version: 7 });
    await read('notes://release-plan');
    await complete({ type: 'ref/resource', uri: 'notes://{slug}' }, { name: 'slug', value: 're' });
    await prompt('review-notes', { tag: 'release' });
  },
};

let failed = false;
try {
  client = await spawnServer(
    join(root, 'servers', name, Object.values(pkg.bin)[0]),
    ['--data-dir', dataDir, '--user', 'ana'],
    { stderr },
  );
  console.log(
    `A scripted client talks to ${name} over stdio, as a host would: → is what it sends, ← what the server answers (shortened).`,
  );
  request('initialize');
  const info = client.getServerVersion();
  const offers = Object.keys(client.getServerCapabilities() ?? {}).filter((key) => key !== 'logging');
  answer(`${info?.name} ${info?.version}, offering ${offers.join(', ')}`);
  request('tools/list');
  const { tools } = await client.listTools();
  const width = Math.max(...tools.map((tool) => tool.name.length));
  answer(
    `${tools.length} tools:\n${tools
      .map((tool) => `${tool.name.padEnd(width)}  ${tool.description?.split('. ')[0]}`)
      .join('\n')}`,
  );
  const smoke = pkg.shipyard?.smoke;
  await (scenarios[name]?.(session) ?? (smoke && session.call(smoke.tool, smoke.arguments ?? {})));
  console.log(
    `\nDone: the session is over and its data (in ${dataDir}) is removed. To serve a host: pnpm start ${name}`,
  );
} catch (error) {
  failed = true;
  console.error(`\npnpm demo ${name} failed: ${error.message}\n${stderr.join('')}`);
} finally {
  await client?.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
