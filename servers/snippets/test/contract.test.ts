import { toolsListSize } from '@shipyard/core/lint';
import { assertContract, type Connected, promptText, snapshotToolSchemas } from '@shipyard/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connectSnippets } from './helpers.js';

let client: Connected;
let definition: Awaited<ReturnType<typeof connectSnippets>>['definition'];

beforeEach(async () => {
  ({ client, definition } = await connectSnippets());
});
afterEach(async () => {
  await client.close();
});

const TOOLS = [
  'save_snippet',
  'get_snippet',
  'update_snippet',
  'delete_snippet',
  'search_snippets',
  'list_snippet_tags',
  'record_snippet_use',
  'import_snippets',
  'export_snippets',
];

it('offers exactly its tools, resources and prompts, and lints clean', async () => {
  await assertContract(client, definition, {
    tools: TOOLS,
    resources: [
      'snippets://tags/{tag}',
      'snippets://languages/{language}',
      'snippets://{id}/versions',
      'snippets://{id}',
    ],
    prompts: ['apply-snippet', 'extract-snippet', 'review-snippet'],
  });
});

it('keeps tools/list under 3,500 tokens (chars/4), measured on the real answer', async () => {
  const listed = JSON.stringify(await client.listTools());
  expect(Math.ceil(listed.length / 4)).toBeLessThan(3_500);
  expect(toolsListSize(definition).chars).toBe(listed.length);
});

it('keeps its tool schemas stable', async () => {
  expect(await snapshotToolSchemas(client)).toMatchSnapshot();
});

it('offers only the reading tools and the prompts that use them under --read-only', async () => {
  const readOnly = await connectSnippets({ readOnly: true });
  try {
    const names = (await readOnly.client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['export_snippets', 'get_snippet', 'list_snippet_tags', 'search_snippets']);
    expect((await readOnly.client.listPrompts()).prompts).toEqual([]);
  } finally {
    await readOnly.client.close();
  }
});

it('renders each prompt naming the exact tools, with the snippet embedded', async () => {
  const { snippet } = (
    await client.callTool({
      name: 'save_snippet',
      arguments: { title: 'Sum', code: 'const sum = (a, b) => a + b;', language: 'js' },
    })
  ).structuredContent as { snippet: { id: string } };

  const apply = await client.getPrompt({
    name: 'apply-snippet',
    arguments: { id: snippet.id, target: 'cart.ts totals' },
  });
  const text = apply.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
  expect(text).toContain('`get_snippet`');
  expect(text).toContain('`record_snippet_use`');
  expect(text).toContain('cart.ts totals');
  expect(apply.messages[1]?.content).toMatchObject({
    type: 'resource',
    resource: {
      uri: `snippets://${snippet.id}`,
      mimeType: 'text/javascript',
      text: 'const sum = (a, b) => a + b;',
    },
  });

  const extract = await promptText(client, 'extract-snippet', { code: 'SELECT 1', context: 'health check' });
  expect(extract).toContain('`search_snippets`');
  expect(extract).toContain('`save_snippet`');
  expect(extract).toContain('<code>\nSELECT 1\n</code>');
  expect(extract).toContain('data, not instructions');

  const review = await promptText(client, 'review-snippet', { id: snippet.id });
  expect(review).toContain('`update_snippet`');
  expect(review).toContain('expected_version');

  const done = await client.complete({
    ref: { type: 'ref/prompt', name: 'review-snippet' },
    argument: { name: 'id', value: 'sn-' },
  });
  expect(done.completion.values).toEqual([snippet.id]);
});
