import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Connected,
  callError,
  callOk,
  connect,
  expectRpcError,
  expectToolError,
  expectToolOk,
} from '../src/index.js';
import { notesServer } from './notes.js';

let client: Connected;
beforeAll(async () => {
  client = await connect(notesServer());
});
afterAll(() => client.close());

const blank = () => client.callTool({ name: 'create_note', arguments: { title: '   ' } });
const search = () => client.callTool({ name: 'search_notes', arguments: { query: 'coffee' } });

describe('expectToolError', () => {
  it('returns the error body when the code matches', async () => {
    const body = expectToolError(await blank(), 'invalid_input');
    expect(body).toEqual({
      code: 'invalid_input',
      message: '`title` must not be blank',
      hint: 'Give the note some text',
    });
  });

  it('fails on another code, on success and on a non-JSON error text', async () => {
    expect(() => expectToolError({}, 'not_found')).toThrow(/got success/);
    const result = await blank();
    expect(() => expectToolError(result, 'not_found')).toThrow(
      /Expected error code not_found, got .*invalid_input/,
    );
    const success = await search();
    expect(() => expectToolError(success, 'not_found')).toThrow(/got success/);
    const plain = { isError: true, content: [{ type: 'text', text: 'boom' }] };
    expect(() => expectToolError(plain, 'internal')).toThrow('Error result text is not JSON: boom');
  });

  it('fails on an error body whose message is missing, empty or not a string, and passes a good one', () => {
    const errorResult = (error: Record<string, unknown>) => ({
      isError: true,
      content: [{ type: 'text', text: JSON.stringify({ error }) }],
    });
    for (const error of [
      { code: 'not_found' },
      { code: 'not_found', message: '' },
      { code: 'not_found', message: 42 },
      { code: 'not_found', message: null },
    ]) {
      expect(() => expectToolError(errorResult(error), 'not_found'), JSON.stringify(error)).toThrow(
        'Error result has no message',
      );
    }
    const good = { code: 'not_found', message: 'No note NOTE-9', hint: 'Call search_notes' };
    expect(expectToolError(errorResult(good), 'not_found')).toEqual(good);
  });
});

describe('expectToolOk', () => {
  it('returns the structured content of a success', async () => {
    expect(expectToolOk(await search())).toEqual({
      items: [{ key: 'NOTE-2', title: 'Buy coffee', tags: [] }],
      total: 1,
    });
  });

  it('fails on an error, and on a text copy that differs or is not compact', async () => {
    const error = await blank();
    expect(() => expectToolOk(error)).toThrow(/Expected success, got error: .*must not be blank/);
    const content = (text: string) => ({ structuredContent: { a: 1 }, content: [{ type: 'text', text }] });
    expect(() => expectToolOk(content('{"a":2}'))).toThrow('The text copy differs from structuredContent');
    expect(() => expectToolOk(content('{ "a": 1 }'))).toThrow('The text copy is not compact JSON');
    expect(() => expectToolOk({ content: [{ type: 'text', text: '{}' }] })).toThrow(
      /Expected structuredContent/,
    );
  });
});

describe('callOk and callError', () => {
  it('call the tool and check the outcome', async () => {
    const found = await callOk<{ total: number }>(client, 'search_notes', { query: 'ship' });
    expect(found.total).toBe(1);
    const error = await callError(client, 'search_notes', { query: 1 }, 'invalid_input');
    expect(error.message).toMatch(/`query` must be a string/);
  });

  it('fail on the other outcome', async () => {
    await expect(callOk(client, 'create_note', { title: ' ' })).rejects.toThrow(/Expected success/);
    await expect(callError(client, 'search_notes', { query: 'x' }, 'not_found')).rejects.toThrow(
      /got success/,
    );
    await expect(callError(client, 'search_notes', {}, 'not_found')).rejects.toThrow(/got .*invalid_input/);
  });
});

describe('expectRpcError', () => {
  it('returns the JSON-RPC error with the expected code', async () => {
    const error = await expectRpcError(client.readResource({ uri: 'notes://NOTE-99' }), -32002);
    expect(error.message).toContain('No note NOTE-99');
    await expectRpcError(client.callTool({ name: 'delete_note', arguments: {} }), -32602);
  });

  it('fails on another code or on success', async () => {
    await expect(expectRpcError(client.readResource({ uri: 'notes://NOTE-99' }), -32602)).rejects.toThrow(
      /Expected JSON-RPC error -32602, got -32002/,
    );
    await expect(expectRpcError(client.readResource({ uri: 'notes://NOTE-1' }), -32002)).rejects.toThrow(
      'Expected JSON-RPC error -32002, but the request succeeded',
    );
  });
});
