import { z } from '@shipyard/core';
import { tool } from '../deps.js';
import { addItem, itemUri } from '../domain/items.js';

export default tool({
  name: 'add_pipelines_item',
  title: 'Add a Pipelines item',
  description:
    'Add an item to Pipelines with a title and optional notes. Returns the new item with its id and ' +
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
  handler(input, ctx) {
    const added = addItem(ctx.deps.db, input);
    // Subscribers hear of every resource the write changed, as the domain reports them.
    ctx.changed(...added.changed);
    const { notes: _notes, ...item } = added.item;
    return { item, uri: itemUri(item.id) };
  },
});
