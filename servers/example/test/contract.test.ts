import { assertContract, type Connected, checkBadInputs, snapshotToolSchemas } from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import listNotes from '../src/tools/list_notes.js';
import saveNote from '../src/tools/save_note.js';
import { connectExample } from './helpers.js';

let client: Connected;
let definition: Awaited<ReturnType<typeof connectExample>>['definition'];

beforeEach(async () => {
  ({ client, definition } = await connectExample());
});
afterEach(async () => {
  await client.close();
});

describe('example server contract', () => {
  it('lists exactly its tools, resources and prompts, and lints clean', async () => {
    await assertContract(client, definition, {
      tools: ['save_note', 'list_notes'],
      resources: ['notes://{slug}'],
      prompts: ['review-notes'],
    });
  });

  it('keeps its tool schemas stable', async () => {
    expect(await snapshotToolSchemas(client)).toMatchSnapshot();
  });
});

describe('bad input', () => {
  it('save_note rejects or stores every bad input without crashing or leaking', async () => {
    const summary = await checkBadInputs(client, 'save_note', saveNote.input, { title: 'A note', body: 'x' });
    expect(summary.rejected).toBeGreaterThan(0);
    expect(summary.accepted).toBeGreaterThan(0);
  });

  it('save_note on an existing note handles bad input too', async () => {
    await client.callTool({ name: 'save_note', arguments: { title: 'Existing' } });
    const summary = await checkBadInputs(
      client,
      'save_note',
      saveNote.input,
      { slug: 'existing', body: 'y' },
      {
        allowedCodes: ['not_found', 'conflict'],
      },
    );
    expect(summary.cases).toBeGreaterThan(20);
  });

  it('list_notes searches any text as data', async () => {
    const summary = await checkBadInputs(client, 'list_notes', listNotes.input, { query: 'plan', limit: 5 });
    expect(summary.accepted).toBeGreaterThan(0);
  });
});
