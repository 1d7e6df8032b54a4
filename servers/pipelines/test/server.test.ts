import {
  assertContract,
  type Connected,
  callError,
  callOk,
  checkBadInputs,
  expectRpcError,
  promptText,
  readText,
  watchResourceUpdates,
} from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import addItem from '../src/tools/add_pipelines_item.js';
import { connectPipelines } from './helpers.js';

interface Added {
  item: { id: number; title: string; created_at: string };
  uri: string;
}

let client: Connected;
let definition: Awaited<ReturnType<typeof connectPipelines>>['definition'];

beforeEach(async () => {
  ({ client, definition } = await connectPipelines());
});
afterEach(async () => {
  await client.close();
});

describe('add_pipelines_item', () => {
  it('adds an item and returns its id and resource URI', async () => {
    const added = await callOk<Added>(client, 'add_pipelines_item', { title: 'First', notes: 'hello' });
    expect(added.item).toMatchObject({ id: 1, title: 'First' });
    expect(added.uri).toBe('pipelines://items/1');
    expect(await readText(client, added.uri)).toContain('hello');
  });

  it('refuses a duplicate title with a conflict', async () => {
    await callOk(client, 'add_pipelines_item', { title: 'Twice' });
    const error = await callError(client, 'add_pipelines_item', { title: 'Twice' }, 'conflict');
    expect(error.hint).toContain('pipelines://items/1');
  });

  it('rejects invalid arguments in plain words', async () => {
    const error = await callError(client, 'add_pipelines_item', { title: '', extra: 1 }, 'invalid_input');
    expect(error.message).toContain('`title`');
    expect(error.message).toContain('allowed: title, notes');
  });

  it('is hidden and refused in read-only mode', async () => {
    const { client: readOnly } = await connectPipelines({ readOnly: true });
    try {
      // Only the writing tool is left out: read-only tools you add stay listed.
      expect((await readOnly.listTools()).tools.map((tool) => tool.name)).not.toContain('add_pipelines_item');
      await callError(readOnly, 'add_pipelines_item', { title: 'x' }, 'forbidden');
    } finally {
      await readOnly.close();
    }
  });

  it('notifies subscribers of the new item', async () => {
    const updates = watchResourceUpdates(client);
    await client.subscribeResource({ uri: 'pipelines://items/1' });
    await callOk(client, 'add_pipelines_item', { title: 'Watched' });
    await expect.poll(() => updates).toEqual(['pipelines://items/1']);
  });

  it('handles bad input without crashing or leaking internals', async () => {
    const summary = await checkBadInputs(
      client,
      'add_pipelines_item',
      addItem.input,
      { title: 'Valid' },
      {
        allowedCodes: ['conflict'],
      },
    );
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('resources and prompts', () => {
  it('answers -32002 for an item that does not exist', async () => {
    await expectRpcError(client.readResource({ uri: 'pipelines://items/999' }), -32002);
  });

  it('completes item ids', async () => {
    for (const title of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']) {
      await callOk(client, 'add_pipelines_item', { title });
    }
    const done = await client.complete({
      ref: { type: 'ref/resource', uri: 'pipelines://items/{id}' },
      argument: { name: 'id', value: '1' },
    });
    expect(done.completion.values).toEqual(['1', '10', '11', '12']);
  });

  it('renders the capture prompt naming the tool to call', async () => {
    const text = await promptText(client, 'pipelines-capture', { text: 'buy milk' });
    expect(text).toContain('`add_pipelines_item`');
    expect(text).toContain('buy milk');
  });

  it('keeps its contract and lints clean', async () => {
    await assertContract(client, definition, {
      tools: ['add_pipelines_item'],
      resources: ['pipelines://items/{id}'],
      prompts: ['pipelines-capture'],
    });
  });
});
