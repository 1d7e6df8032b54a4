import {
  type Connected,
  callError,
  callOk,
  expectRpcError,
  promptText,
  readText,
  watchResourceUpdates,
} from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectExample } from './helpers.js';

interface Saved {
  note: { slug: string; title: string; tags: string[]; version: number; updated_at: string };
  created: boolean;
}
interface Listed {
  items: Saved['note'][];
  next_cursor: string | null;
  total: number;
}

let client: Connected;

beforeEach(async () => {
  ({ client } = await connectExample());
});
afterEach(async () => {
  await client.close();
});

describe('save_note', () => {
  it('creates a note with a slug from its title and normalised tags', async () => {
    const saved = await callOk<Saved>(client, 'save_note', {
      title: 'Release plan: Q3!',
      body: 'Ship it',
      tags: ['Planning', 'planning', ' Q3 '],
    });
    expect(saved.created).toBe(true);
    expect(saved.note).toMatchObject({ slug: 'release-plan-q3', tags: ['planning', 'q3'], version: 1 });
    expect(saved.note.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('updates a note and bumps its version', async () => {
    await callOk(client, 'save_note', { title: 'Draft' });
    const saved = await callOk<Saved>(client, 'save_note', {
      slug: 'draft',
      body: 'v2',
      expected_version: 1,
    });
    expect(saved).toMatchObject({ created: false, note: { slug: 'draft', title: 'Draft', version: 2 } });
    expect(await readText(client, 'notes://draft')).toContain('v2');
  });

  it('refuses a stale expected_version with a conflict that says how to recover', async () => {
    await callOk(client, 'save_note', { title: 'Draft' });
    await callOk(client, 'save_note', { slug: 'draft', body: 'one', expected_version: 1 });
    const error = await callError(
      client,
      'save_note',
      { slug: 'draft', body: 'two', expected_version: 1 },
      'conflict',
    );
    expect(error.message).toContain('version 2, not 1');
    expect(error.hint).toMatch(/retry/i);
  });

  it('refuses a second note with the same slug', async () => {
    await callOk(client, 'save_note', { title: 'Same title' });
    const error = await callError(client, 'save_note', { title: 'same TITLE' }, 'conflict');
    expect(error.hint).toContain('same-title');
  });

  it('answers not_found for an unknown slug, pointing to list_notes', async () => {
    const error = await callError(client, 'save_note', { slug: 'nope', body: 'x' }, 'not_found');
    expect(error.hint).toContain('list_notes');
  });

  it('needs a title to create, and a title with letters or digits', async () => {
    expect((await callError(client, 'save_note', { body: 'x' }, 'invalid_input')).message).toContain('title');
    expect((await callError(client, 'save_note', { title: '!!!' }, 'invalid_input')).message).toContain(
      'slug',
    );
    const versionWithoutSlug = await callError(
      client,
      'save_note',
      { title: 'x', expected_version: 1 },
      'invalid_input',
    );
    expect(versionWithoutSlug.message).toContain('expected_version');
  });

  it('rejects unknown arguments, naming the allowed ones', async () => {
    const error = await callError(client, 'save_note', { title: 'x', colour: 'red' }, 'invalid_input');
    expect(error.message).toContain('`colour`');
    expect(error.message).toContain('allowed: slug, title, body, tags, expected_version');
  });

  it('is refused in read-only mode', async () => {
    const { client: readOnly } = await connectExample({ readOnly: true });
    try {
      const tools = await readOnly.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['list_notes']);
      const error = await callError(readOnly, 'save_note', { title: 'x' }, 'forbidden');
      expect(error.message).toContain('--read-only');
    } finally {
      await readOnly.close();
    }
  });

  it('notifies subscribers of the note it changed', async () => {
    await callOk(client, 'save_note', { title: 'Watched' });
    const updates = watchResourceUpdates(client);
    await client.subscribeResource({ uri: 'notes://watched' });
    await callOk(client, 'save_note', { slug: 'watched', body: 'new' });
    await callOk(client, 'save_note', { title: 'Other' });
    await expect.poll(() => updates).toEqual(['notes://watched']);
  });
});

describe('list_notes', () => {
  beforeEach(async () => {
    for (let i = 1; i <= 25; i++) {
      await callOk(client, 'save_note', {
        title: `Note ${i}`,
        body: i % 5 === 0 ? 'contains 100% literal_match' : 'plain',
        tags: i % 2 === 0 ? ['even'] : ['odd'],
      });
    }
  });

  it('pages through every note once, newest first', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: Listed = await callOk<Listed>(client, 'list_notes', {
        limit: 10,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total).toBe(25);
      seen.push(...page.items.map((n) => n.slug));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(25);
    expect(seen[0]).toBe('note-25');
  });

  it('defaults to 20 per page and returns summaries without bodies', async () => {
    const page = await callOk<Listed>(client, 'list_notes', {});
    expect(page.items).toHaveLength(20);
    expect(page.items[0]).not.toHaveProperty('body');
    expect(page.next_cursor).not.toBeNull();
  });

  it('filters by tag and by literal text, treating % and _ as characters', async () => {
    expect((await callOk<Listed>(client, 'list_notes', { tag: 'EVEN' })).total).toBe(12);
    const literal = await callOk<Listed>(client, 'list_notes', { query: '100% literal_' });
    expect(literal.total).toBe(5);
    expect((await callOk<Listed>(client, 'list_notes', { query: '1_0%' })).total).toBe(0);
    expect((await callOk<Listed>(client, 'list_notes', { query: 'plain', tag: 'odd' })).total).toBe(10);
  });

  it('rejects a cursor from another query and a forged cursor', async () => {
    const first = await callOk<Listed>(client, 'list_notes', { tag: 'even', limit: 5 });
    const cursor = first.next_cursor as string;
    await callError(client, 'list_notes', { tag: 'odd', cursor }, 'invalid_input');
    await callError(client, 'list_notes', { cursor: 'not-a-cursor' }, 'invalid_input');
  });

  it('rejects a limit out of range in plain words', async () => {
    const error = await callError(client, 'list_notes', { limit: 500 }, 'invalid_input');
    expect(error.message).toContain('`limit` must be at most 100');
  });
});

describe('notes resource and prompt', () => {
  beforeEach(async () => {
    await callOk(client, 'save_note', { title: 'Alpha', tags: ['release'] });
    await callOk(client, 'save_note', { title: 'Alpine', tags: ['research'] });
    await callOk(client, 'save_note', { title: 'Beta' });
  });

  it('lists notes as resources and reads one as markdown', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['notes://alpha', 'notes://alpine', 'notes://beta']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['notes://{slug}']);
    const read = await client.readResource({ uri: 'notes://alpha' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect(await readText(client, 'notes://alpha')).toContain('# Alpha');
  });

  it('answers -32002 for a note that does not exist', async () => {
    await expectRpcError(client.readResource({ uri: 'notes://missing' }), -32002);
  });

  it('completes slugs and tags', async () => {
    const slugs = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{slug}' },
      argument: { name: 'slug', value: 'alp' },
    });
    expect(slugs.completion.values).toEqual(['alpha', 'alpine']);
    const tags = await client.complete({
      ref: { type: 'ref/prompt', name: 'review-notes' },
      argument: { name: 'tag', value: 're' },
    });
    expect(tags.completion.values).toEqual(['release', 'research']);
  });

  it('renders the review prompt naming the tools to call', async () => {
    const text = await promptText(client, 'review-notes', { tag: 'release' });
    expect(text).toContain('`list_notes` with tag "release"');
    expect(text).toContain('`save_note`');
  });
});
