import { describe, expect, it } from 'vitest';
import { defineResource, defineServer } from '../src/index.js';
import { connect } from './helpers.js';

const lines = defineResource({
  uri: 'demo://items/{id}/lines{?offset,limit}',
  name: 'lines',
  description: 'Lines of an item',
  mimeType: 'application/json',
  read: (params) => params,
});

describe('a template ending in a query expression', () => {
  it('matches with all, some, none or reordered query variables, ignoring others', async () => {
    const harness = await connect(
      defineServer({ name: 'demo', version: '0.0.0', deps: {}, tools: [], resources: [lines] }),
    );
    const read = async (uri: string) => {
      const { contents } = await harness.client.readResource({ uri });
      return JSON.parse((contents[0] as { text: string }).text);
    };
    expect(await read('demo://items/7/lines?offset=3&limit=2')).toEqual({ id: '7', offset: '3', limit: '2' });
    expect(await read('demo://items/7/lines')).toEqual({ id: '7' });
    expect(await read('demo://items/7/lines?limit=2')).toEqual({ id: '7', limit: '2' });
    expect(await read('demo://items/7/lines?limit=2&x=1&offset=0')).toEqual({
      id: '7',
      offset: '0',
      limit: '2',
    });
    await expect(harness.client.readResource({ uri: 'demo://items/7/other' })).rejects.toThrow(/not found/i);
    await harness.close();
  });
});
