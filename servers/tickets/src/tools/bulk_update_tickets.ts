import { listedByType, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { MAX_BULK_KEYS } from '../domain/bulk.js';
import { PRIORITIES, STATUSES } from '../domain/model.js';
import { fields, lineOfText } from './shared.js';

/** One key's change. A value per key, so one call triages tickets that each get their own. */
const change = z.object({
  key: fields.key,
  expected_version: z.number().int().optional().describe('Version you read'),
  status: z.enum(STATUSES).optional(),
  resolution: lineOfText(200).optional(),
  priority: z.enum(PRIORITIES).optional(),
  assignee: fields.person.optional(),
  add_labels: fields.labels.optional().describe('Labels to add'),
  remove_labels: fields.labels.optional().describe('Labels to remove'),
  duplicate_of: fields.key.optional().describe('Close as a duplicate of this key'),
});

export default tool({
  name: 'bulk_update_tickets',
  title: 'Update many tickets',
  description:
    'Change up to 100 tickets given as items, each a key and its change (status, priority, assignee, labels ' +
    'to add or remove, duplicate_of), checked alone. Returns per key ok with version and changed, or its error: a ' +
    'failed key changes nothing, the others apply. Use this to triage many tickets.',
  input: {
    items: z.array(change).min(1).max(MAX_BULK_KEYS).describe('Each a key and its change'),
  },
  output: {
    failed: z.number().int(),
    // Each a key and ok, with version and changed, or error (as a failed call's: code, message, hint,
    // details): the description names them, which costs less in tools/list than their schema.
    results: listedByType(z.array(z.object({ key: z.string(), ok: z.boolean() }).loose())),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  aliases: { tickets: 'items', changes: 'items' },
  elsewhere: {
    keys: 'Each key comes as an item with its change: items [{"key": "SHIP-1", "priority": "high"}, …]',
    change: 'Each key comes as an item with its change: items [{"key": "SHIP-1", "priority": "high"}, …]',
  },
  async handler(input, ctx) {
    const { results, changed } = await ctx.deps.store.bulkUpdate(input.items, ctx.user);
    ctx.changed(...changed);
    const failed = results.filter((result) => !result.ok).length;
    return { failed, results };
  },
});
