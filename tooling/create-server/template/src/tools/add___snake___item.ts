import { defineTool, type ToolContext, z } from '@shipyard/core';
import { addItem } from '../domain/items.js';
import type { __Pascal__Deps } from '../server.js';

export default defineTool({
  name: 'add___snake___item',
  title: 'Add a __title__ item',
  description:
    'Add an item to __title__ with a title and optional notes. Returns the new item with its id and ' +
    'the URI of its resource. Use this when the user asks to record something new; titles are unique.',
  input: {
    title: z.string().trim().min(1).max(200).describe('Short title of the item, 1-200 characters, unique'),
    notes: z.string().max(10_000).optional().describe('Longer notes in markdown, up to 10,000 characters'),
  },
  output: {
    item: z.object({ id: z.number().int(), title: z.string(), created_at: z.string() }),
    uri: z.string().describe('Resource URI to read the whole item'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler(input, ctx: ToolContext<__Pascal__Deps>) {
    const { notes: _notes, ...item } = addItem(ctx.deps.db, input);
    const uri = `__name__://items/${item.id}`;
    ctx.changed(uri);
    return { item, uri };
  },
});
