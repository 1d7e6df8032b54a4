import { defineServer, defineTool, z } from '@shipyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { assertContract, type Connected, connect, snapshotToolSchemas } from '../src/index.js';
import { notesServer } from './notes.js';

const expected = {
  tools: ['search_notes', 'create_note'],
  resources: ['notes://{key}', 'notes://recent'],
  prompts: ['review-notes'],
};

describe('assertContract', () => {
  let client: Connected | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('passes when names match and the lint has no errors', async () => {
    const definition = notesServer();
    client = await connect(definition);
    await assertContract(client, definition, expected);
  });

  it('fails on a missing or an extra tool, with a readable diff', async () => {
    const definition = notesServer();
    client = await connect(definition);
    const missing = assertContract(client, definition, {
      ...expected,
      tools: [...expected.tools, 'delete_note'],
    });
    await expect(missing).rejects.toThrow('- tools: missing delete_note (expected but not listed)');
    const extra = assertContract(client, definition, { ...expected, tools: ['create_note'] });
    await expect(extra).rejects.toThrow('- tools: unexpected search_notes (listed but not expected)');
  });

  it('compares resources (static URIs and templates, not listed instances) and prompts', async () => {
    const definition = notesServer();
    client = await connect(definition);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('notes://NOTE-1');
    const error = await assertContract(client, definition, { tools: expected.tools }).catch((e: Error) => e);
    expect((error as Error).message).toContain('- resources: unexpected notes://recent, notes://{key}');
    expect((error as Error).message).toContain('- prompts: unexpected review-notes');
    expect((error as Error).message).not.toContain('NOTE-1');
    const wrong = assertContract(client, definition, { ...expected, prompts: ['triage-notes'] });
    await expect(wrong).rejects.toThrow(
      /prompts: missing triage-notes.*\n- prompts: unexpected review-notes/,
    );
  });

  it('requires a title of every tool but the untitled ones, which must have none', async () => {
    const definition = notesServer();
    const search = definition.tools.find((tool) => tool.name === 'search_notes');
    if (search) delete search.title;
    client = await connect(definition);
    await expect(assertContract(client, definition, expected)).rejects.toThrow(
      '- tool search_notes lacks title',
    );
    await assertContract(client, definition, { ...expected, untitled: ['search_notes'] });
    await expect(
      assertContract(client, definition, { ...expected, untitled: ['create_note'] }),
    ).rejects.toThrow('- tool create_note has a title, but is expected untitled');
  });

  it('fails when the description lint finds errors', async () => {
    const definition = defineServer({
      name: 'vague',
      version: '0.0.0',
      deps: {},
      tools: [
        defineTool({
          name: 'thing',
          title: 'Thing',
          description: 'Thing tool',
          input: { x: z.string() },
          output: { ok: z.boolean() },
          annotations: {
            readOnlyHint: true,
            destructiveHint: true,
            idempotentHint: true,
            openWorldHint: false,
          },
          handler: () => ({ ok: true }),
        }),
      ],
    });
    client = await connect(definition);
    await expect(assertContract(client, definition, { tools: ['thing'] })).rejects.toThrow(
      /the description lint has \d+ error\(s\)/,
    );
  });
});

describe('snapshotToolSchemas', () => {
  it('is stable: tools sorted by name, keys sorted, pretty JSON', async () => {
    const client = await connect(notesServer());
    const snapshot = await snapshotToolSchemas(client);
    expect(await snapshotToolSchemas(client)).toBe(snapshot);
    const tools = JSON.parse(snapshot) as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).toEqual(['create_note', 'search_notes']);
    expect(Object.keys(tools[0] ?? {})).toEqual([
      'annotations',
      'description',
      'inputSchema',
      'name',
      'outputSchema',
      'title',
    ]);
    expect(snapshot).toContain('\n  {\n    "annotations": {\n      "destructiveHint": false,');
    await client.close();
  });
});
