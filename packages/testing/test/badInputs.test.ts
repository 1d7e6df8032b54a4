import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from '@shipyard/core';
import { afterEach, describe, expect, it } from 'vitest';
import { badInputs, badValues, type Connected, checkBadInputs, connect } from '../src/index.js';
import { createNoteInput, leakySearch, notesServer, searchNotesInput, sqlSearch } from './notes.js';

const validNote = { title: 'Plan the sprint', tags: ['work'] };

describe('badInputs', () => {
  it('generates every category for a string, an integer and an array field', () => {
    const cases = badInputs(createNoteInput, validNote);
    const r = 'reject';
    const e = 'either';
    expect(cases.map((c) => [c.name, c.expect])).toEqual([
      ['title: wrong type (number)', r],
      ['title: wrong type (boolean)', r],
      ['title: wrong type (object)', r],
      ['title: wrong type (array)', r],
      ['title: wrong type (null)', r],
      ['title: empty string', r],
      ['title: whitespace only', e],
      ['title: 1 MB string', r],
      ['title: emoji', e],
      ['title: right-to-left text', e],
      ['title: combining characters', e],
      ['title: NUL byte', e],
      ['title: lone surrogate', e],
      ['title: SQL injection (statement)', e],
      ['title: SQL injection (tautology)', e],
      ['title: FTS syntax (open group)', e],
      ['title: FTS syntax (unbalanced quote)', e],
      ['title: FTS syntax (bare star)', e],
      ['title: FTS syntax (NEAR)', e],
      ['title: FTS syntax (column filter)', e],
      ['title: over maxLength 200', r],
      ['limit: wrong type (string)', r],
      ['limit: wrong type (boolean)', r],
      ['limit: wrong type (object)', r],
      ['limit: wrong type (array)', r],
      ['limit: wrong type (null)', r],
      ['limit: negative', r],
      ['limit: zero', r],
      ['limit: huge (1e308)', r],
      ['limit: unsafe integer', r],
      ['limit: float for integer', r],
      ['limit: above maximum 100', r],
      ['tags: wrong type (string)', r],
      ['tags: wrong type (number)', r],
      ['tags: wrong type (boolean)', r],
      ['tags: wrong type (object)', r],
      ['tags: wrong type (null)', r],
      ['tags: 10,000 items', r],
      ['tags: items of wrong types', r],
      ['tags: over maxItems 20', r],
      ['arguments: unknown extra key', r],
      ['arguments: empty object', r],
      ['arguments: all fields null', r],
    ]);
  });

  it('lets a list without maxItems take 10,000 items or refuse them', () => {
    const cases = badInputs({ tags: z.array(z.string().max(5)).describe('Tags') }, { tags: ['a'] });
    expect(cases.find((c) => c.name === 'tags: 10,000 items')?.expect).toBe('either');
    expect(cases.map((c) => c.name)).not.toContain('tags: over maxItems 20');
  });

  it('changes one field of the valid arguments at a time', () => {
    const cases = badInputs(createNoteInput, validNote);
    const byName = new Map(cases.map((c) => [c.name, c.args]));
    expect(byName.get('title: NUL byte')).toEqual({ title: 'a\u0000b', tags: ['work'] });
    expect(byName.get('limit: float for integer')).toEqual({ ...validNote, limit: 1.5 });
    expect(byName.get('tags: 10,000 items')?.tags).toEqual(Array(10_000).fill('work'));
    expect(byName.get('title: 1 MB string')?.title).toHaveLength(1024 * 1024);
    expect(byName.get('arguments: all fields null')).toEqual({ title: null, limit: null, tags: null });
    for (const c of cases) expect(JSON.parse(JSON.stringify(c.args))).toEqual(c.args); // all JSON-safe
  });

  it('follows the schema: bounds, enums, nullable and unbounded fields', () => {
    const shape = {
      name: z.string().max(5).nullable(),
      status: z.enum(['open', 'closed']).optional(),
      count: z.number().min(10),
      anything: z.unknown().optional(),
      ids: z.array(z.int()).max(3).optional(),
      ratio: z.number().gt(0).lt(5).optional(),
    };
    const cases = new Map(badInputs(shape, { name: 'a', count: 10 }).map((c) => [c.name, c.expect]));
    expect(cases.get('name: wrong type (null)')).toBeUndefined(); // null is allowed
    expect(cases.get('name: empty string')).toBe('either');
    expect(cases.get('name: over maxLength 5')).toBe('reject');
    expect(cases.get('status: emoji')).toBe('reject'); // not in the enum
    expect(cases.get('count: below minimum 10')).toBe('reject');
    expect(cases.get('count: float for integer')).toBeUndefined();
    expect(cases.get('count: huge (1e308)')).toBe('either');
    expect([...cases.keys()].some((name) => name.startsWith('anything:'))).toBe(false);
    expect(cases.get('ids: over maxItems 3')).toBe('reject');
    expect(cases.get('ids: items of wrong types')).toBe('reject');
    expect(cases.get('ratio: above maximum 5')).toBe('reject'); // exclusive: 5 itself is out
    expect(cases.get('ratio: zero')).toBe('reject');
    expect([...cases.keys()].filter((name) => name.startsWith('ratio: below'))).toEqual([]); // zero covers it
    expect(cases.has('arguments: empty object')).toBe(true); // count is required
    expect(badInputs({ q: z.string().optional() }, {}).map((c) => c.name)).not.toContain(
      'arguments: empty object',
    );
  });

  it('refuses valid arguments that do not parse', () => {
    expect(() => badInputs(createNoteInput, { title: '' })).toThrow(/valid arguments do not parse.*title/s);
  });

  it('exports the raw bad strings', () => {
    expect(badValues).toContain("' OR 1=1 --");
    expect(badValues).toContain('NEAR(a b)');
    expect(badValues).toContain('');
    expect(badValues.every((v) => typeof v === 'string')).toBe(true);
  });
});

describe('checkBadInputs', () => {
  let client: Connected | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('passes against a well-behaved server', async () => {
    client = await connect(notesServer());
    const notes = await checkBadInputs(client, 'create_note', createNoteInput, validNote);
    expect(notes).toEqual({ cases: 43, rejected: 31, accepted: 12 }); // blank title refused by the handler
    const search = await checkBadInputs(client, 'search_notes', searchNotesInput, { query: 'ship' });
    expect(search.cases).toBe(search.rejected + search.accepted);
    expect(search.accepted).toBeGreaterThan(10);
  });

  it('fails, naming the cases, when the handler throws a raw database error', async () => {
    const logs: string[] = [];
    client = await connect(notesServer(sqlSearch), { logs });
    const error = await checkBadInputs(client, 'search_notes', searchNotesInput, { query: 'ship' }).catch(
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^checkBadInputs\(search_notes\): 5 of \d+ cases failed/);
    expect(message).toContain('- query: SQL injection (statement) (expect either): error code internal');
    expect(message).toContain('- query: FTS syntax (NEAR) (expect either): error code internal');
    expect(message).not.toContain('bare star');
    expect(logs.join('')).toContain('SQLITE_ERROR'); // the real error went to the log, not to the client
  });

  it('fails when an error text leaks internals', async () => {
    client = await connect(notesServer(leakySearch));
    await expect(checkBadInputs(client, 'search_notes', searchNotesInput, { query: 'ship' })).rejects.toThrow(
      /FTS syntax \(open group\) \(expect either\): the error text leaks the database engine/,
    );
  });

  it('accepts extra error codes the tool may answer', async () => {
    client = await connect(notesServer(), { readOnly: true });
    await expect(checkBadInputs(client, 'create_note', createNoteInput, validNote)).rejects.toThrow(
      /error code forbidden/,
    );
    const summary = await checkBadInputs(client, 'create_note', createNoteInput, validNote, {
      allowedCodes: ['forbidden'],
    });
    expect(summary.accepted).toBe(0);
  });

  describe('with a fake client answering every case the same way', () => {
    const shape = { q: z.string().max(5) };
    /** A client whose every call answers `invalid_input` with this message. */
    const answering = (message: string) =>
      ({
        callTool: async () => ({
          isError: true,
          content: [{ type: 'text', text: JSON.stringify({ error: { code: 'invalid_input', message } }) }],
        }),
        listTools: async () => ({ tools: [] }),
      }) as unknown as Client;
    /** The length of the error text for this message: the JSON body around it adds the rest. */
    const textLength = (message: string) =>
      JSON.stringify({ error: { code: 'invalid_input', message } }).length;

    it('fails when an error text is over 4,000 characters, naming its length', async () => {
      const padding = 'x'.repeat(4_001 - textLength(''));
      expect(textLength(padding)).toBe(4_001);
      await expect(checkBadInputs(answering(padding), 'find', shape, { q: 'a' })).rejects.toThrow(
        /q: empty string \(expect either\): the error text has 4001 chars \(max 4000\)/,
      );
    });

    it('passes an error text of exactly 4,000 characters, and a short one', async () => {
      const padding = 'x'.repeat(4_000 - textLength(''));
      expect(textLength(padding)).toBe(4_000);
      const cases = badInputs(shape, { q: 'a' }).length;
      for (const message of [padding, '`q` must have at most 5 characters']) {
        await expect(checkBadInputs(answering(message), 'find', shape, { q: 'a' })).resolves.toEqual({
          cases,
          rejected: cases,
          accepted: 0,
        });
      }
    });
  });

  it('fails when the tool does not exist (a protocol error)', async () => {
    client = await connect(notesServer());
    await expect(checkBadInputs(client, 'delete_note', createNoteInput, validNote)).rejects.toThrow(
      /failed at the protocol level \(-32602\): .*Unknown tool: delete_note/,
    );
  });
});
