import { InvalidInput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { createNote, updateNote } from '../domain/notes.js';
import { NoteSummary } from './shared.js';

export default tool({
  name: 'save_note',
  title: 'Save a note',
  description:
    'Create a note from a title, body and tags, or update an existing one by passing its slug. ' +
    'Returns the saved note summary with its slug and new version. Use this when the user asks to write ' +
    'something down or change a note; pass expected_version from list_notes when updating so a concurrent ' +
    'edit is not overwritten.',
  input: {
    slug: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,59}$/)
      .optional()
      .describe('Slug of the note to update (from list_notes); omit to create a new note'),
    title: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Note title, 1-200 characters; required to create'),
    body: z.string().max(20_000).optional().describe('Note text in markdown, up to 20,000 characters'),
    tags: z
      .array(z.string().trim().min(1).max(30))
      .max(10)
      .optional()
      .describe('Up to 10 tags; stored lower-case, duplicates dropped'),
    expected_version: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Version you last read; the update fails with a conflict if the note changed since'),
  },
  output: { note: NoteSummary, created: z.boolean().describe('True when a new note was created') },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler(input, ctx) {
    const { db } = ctx.deps;
    if (input.slug === undefined) {
      if (input.title === undefined) {
        throw new InvalidInput('`title` is required to create a note', {
          hint: 'Pass a title, or pass slug to update an existing note',
        });
      }
      if (input.expected_version !== undefined) {
        throw new InvalidInput('`expected_version` only applies when updating; pass slug as well');
      }
      const created = createNote(db, { title: input.title, body: input.body, tags: input.tags });
      ctx.changed(...created.changed);
      const { body: _body, created_at: _created, ...note } = created.note;
      return { note, created: true };
    }
    const updated = updateNote(db, {
      slug: input.slug,
      expectedVersion: input.expected_version,
      title: input.title,
      body: input.body,
      tags: input.tags,
    });
    ctx.changed(...updated.changed);
    const { body: _body, created_at: _created, ...note } = updated.note;
    return { note, created: false };
  },
});
