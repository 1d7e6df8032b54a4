#!/usr/bin/env node
// `pnpm demo`: build the example server, then drive it over stdio like a host would, printing each step.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const build = spawnSync(
  'pnpm',
  [
    'exec',
    'turbo',
    'run',
    'build',
    '--filter=@shipyard/example...',
    '--filter=@shipyard/testing',
    '--output-logs=errors-only',
  ],
  {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
    env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
  },
);
if (build.status !== 0) process.exit(build.status ?? 1);

const { spawnServer } = await import('@shipyard/testing');
const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-demo-'));
const client = await spawnServer(join(root, 'servers/example/dist/index.cjs'), ['--data-dir', dataDir]);
const show = (title, value) =>
  console.log(`\n## ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`);
const call = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  show(`tools/call ${name} ${JSON.stringify(args)}`, result.structuredContent ?? result.content);
};
try {
  const info = client.getServerVersion();
  show('initialize', `${info?.name} ${info?.version} (data in ${dataDir})`);
  show('tools/list', (await client.listTools()).tools.map((t) => `${t.name}: ${t.description}`).join('\n'));
  await call('save_note', {
    title: 'Release plan',
    body: 'Ship the tickets server first.',
    tags: ['release'],
  });
  await call('save_note', { title: 'Retro notes', tags: ['team'] });
  await call('list_notes', { tag: 'release' });
  await call('save_note', { slug: 'release-plan', body: 'Changed elsewhere', expected_version: 7 });
  show(
    'resources/read notes://release-plan',
    (await client.readResource({ uri: 'notes://release-plan' })).contents[0]?.text,
  );
  const done = await client.complete({
    ref: { type: 'ref/resource', uri: 'notes://{slug}' },
    argument: { name: 'slug', value: 're' },
  });
  show('completion/complete notes://{slug} "re"', done.completion.values);
  const prompt = await client.getPrompt({ name: 'review-notes', arguments: { tag: 'release' } });
  show('prompts/get review-notes', prompt.messages.map((m) => m.content.text).join('\n'));
} finally {
  await client.close();
  rmSync(dataDir, { recursive: true, force: true });
}
