import {
  type Connected,
  callError,
  callOk,
  checkBadInputs,
  expectRpcError,
  readText,
  watchResourceUpdates,
} from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import deleteSnippetTool from '../src/tools/delete_snippet.js';
import exportSnippetsTool from '../src/tools/export_snippets.js';
import getSnippetTool from '../src/tools/get_snippet.js';
import listSnippetTagsTool from '../src/tools/list_snippet_tags.js';
import recordSnippetUseTool from '../src/tools/record_snippet_use.js';
import saveSnippetTool from '../src/tools/save_snippet.js';
import searchSnippetsTool from '../src/tools/search_snippets.js';
import updateSnippetTool from '../src/tools/update_snippet.js';
import { connectSnippets } from './helpers.js';

interface Snippet {
  id: string;
  title: string;
  code: string;
  language: string | null;
  tags: string[];
  version: number;
  worked: number;
  failed: number;
}
interface Saved {
  snippet: Snippet;
  duplicate_of: string | null;
  language_guessed_from: string | null;
  uri: string;
}
interface Summary {
  id: string;
  title: string;
  head: string;
  lines: number;
  worked: number;
}
interface SearchPage {
  items: Summary[];
  total: number;
  next_cursor: string | null;
  note?: string;
}

let client: Connected;

beforeEach(async () => {
  ({ client } = await connectSnippets());
});
afterEach(async () => {
  await client.close();
});

const save = (args: Record<string, unknown>) => callOk<Saved>(client, 'save_snippet', args);
const search = (args: Record<string, unknown>) => callOk<SearchPage>(client, 'search_snippets', args);

const DEBOUNCE = `export function debounceInput<T extends (...args: never[]) => void>(fn: T, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: Parameters<T>) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}`;

describe('save_snippet', () => {
  it('saves a snippet with a readable id and normalised tags', async () => {
    const saved = await save({
      title: 'Debounce',
      code: DEBOUNCE,
      language: 'ts',
      tags: ['React', 'react', ' Timing '],
    });
    expect(saved.snippet.id).toMatch(/^sn-[0-9a-z]{5}$/);
    expect(saved.snippet).toMatchObject({
      title: 'Debounce',
      language: 'TypeScript',
      tags: ['react', 'timing'],
      version: 1,
    });
    expect(saved.duplicate_of).toBeNull();
    expect(saved.language_guessed_from).toBeNull();
    expect(saved.uri).toBe(`snippets://${saved.snippet.id}`);
  });

  it('returns the existing snippet for the same code, whatever its line endings and trailing blanks', async () => {
    const first = await save({ title: 'Hello', code: 'print("hi")\nprint("there")\n', language: 'py' });
    const again = await save({ title: 'Hello again', code: 'print("hi")   \r\nprint("there")\r\n\r\n' });
    expect(again.duplicate_of).toBe(first.snippet.id);
    expect(again.snippet.title).toBe('Hello');
    expect((await search({})).total).toBe(1);
  });

  it('resolves language aliases and extensions through Linguist', async () => {
    const cases: [string, string][] = [
      ['ts', 'TypeScript'],
      ['py', 'Python'],
      ['golang', 'Go'],
      ['rs', 'Rust'],
      ['sh', 'Shell'],
      ['bash', 'Shell'],
      ['sql', 'SQL'],
      ['.rs', 'Rust'],
    ];
    for (const [i, [given, expected]] of cases.entries()) {
      const saved = await save({ title: `alias ${given}`, code: `x ${i}`, language: given });
      expect(saved.snippet.language, given).toBe(expected);
    }
  });

  it('refuses a language Linguist does not know, naming what to do', async () => {
    const error = await callError(
      client,
      'save_snippet',
      { title: 't', code: 'x', language: 'klingonscript' },
      'invalid_input',
    );
    expect(error.message).toContain('klingonscript');
    expect(error.hint).toContain('guessed');
  });

  it('guesses the language from the extension, a shebang or the code, and says which', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ code: 'fn main() {}', source: 'src/main.rs' }, 'Rust', 'extension'],
      [{ code: 'echo hi', source: 'https://example.com/x/install.sh?raw=1' }, 'Shell', 'extension'],
      [{ code: 'FROM node:20', source: 'Dockerfile' }, 'Dockerfile', 'filename'],
      [{ code: '#!/usr/bin/env python3\nprint(1)' }, 'Python', 'shebang'],
      [{ code: '#!/bin/bash\nset -e\nls' }, 'Shell', 'shebang'],
      [{ code: 'package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}' }, 'Go', 'content'],
      [{ code: 'def add(a, b):\n    return a + b\n' }, 'Python', 'content'],
      [{ code: 'SELECT id, name\nFROM users\nWHERE id = 1;' }, 'SQL', 'content'],
      [{ code: 'interface User {\n  id: number;\n}\nconst u: User = { id: 1 };' }, 'TypeScript', 'content'],
      [
        { code: 'pub fn add(a: i32, b: i32) -> i32 {\n    let mut s = a;\n    s += b;\n    s\n}' },
        'Rust',
        'content',
      ],
      [{ code: 'if [ -f x ]; then\n  echo yes\nfi' }, 'Shell', 'content'],
    ];
    for (const [args, language, from] of cases) {
      const saved = await save({ title: `guess ${language} ${from}`, ...args });
      expect([saved.snippet.language, saved.language_guessed_from], JSON.stringify(args)).toEqual([
        language,
        from,
      ]);
    }
  });

  it('leaves the language empty when nothing tells it', async () => {
    const saved = await save({ title: 'prose', code: 'just some words here' });
    expect(saved.snippet.language).toBeNull();
    expect(saved.language_guessed_from).toBeNull();
  });

  it('refuses blank code and bad tags', async () => {
    await callError(client, 'save_snippet', { title: 't', code: ' \n\n' }, 'invalid_input');
    const error = await callError(
      client,
      'save_snippet',
      { title: 't', code: 'x', tags: ['a/b'] },
      'invalid_input',
    );
    expect(error.message).toContain('a/b');
  });

  it('copes with bad input', async () => {
    const summary = await checkBadInputs(client, 'save_snippet', saveSnippetTool.input, {
      title: 'Valid',
      code: 'let x = 1',
    });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('get_snippet and versions', () => {
  it('keeps every version readable after edits', async () => {
    const { snippet } = await save({
      title: 'Sum',
      code: 'def s(a, b):\n    return a + b',
      language: 'python',
      tags: ['math'],
    });
    const v2 = await callOk<{ snippet: Snippet; previous_version: number }>(client, 'update_snippet', {
      id: snippet.id,
      expected_version: 1,
      code: 'def s(*xs):\n    return sum(xs)',
      tags: ['math', 'varargs'],
    });
    expect(v2.previous_version).toBe(1);
    expect(v2.snippet).toMatchObject({ version: 2, tags: ['math', 'varargs'] });
    await callOk(client, 'update_snippet', { id: snippet.id, expected_version: 2, title: 'Sum of many' });

    const now = await callOk<{ snippet: Snippet; current_version: number; versions_kept: number }>(
      client,
      'get_snippet',
      { id: snippet.id },
    );
    expect(now).toMatchObject({ current_version: 3, versions_kept: 2 });
    expect(now.snippet).toMatchObject({ title: 'Sum of many', code: 'def s(*xs):\n    return sum(xs)' });
    const first = await callOk<{ snippet: Snippet }>(client, 'get_snippet', { id: snippet.id, version: 1 });
    expect(first.snippet).toMatchObject({
      version: 1,
      title: 'Sum',
      code: 'def s(a, b):\n    return a + b',
      tags: ['math'],
    });
    const second = await callOk<{ snippet: Snippet }>(client, 'get_snippet', { id: snippet.id, version: 2 });
    expect(second.snippet).toMatchObject({ version: 2, title: 'Sum', tags: ['math', 'varargs'] });

    const listed = JSON.parse(await readText(client, `snippets://${snippet.id}/versions`)) as {
      current: number;
      versions: { version: number; title: string }[];
    };
    expect(listed.current).toBe(3);
    expect(listed.versions.map((v) => [v.version, v.title])).toEqual([
      [2, 'Sum'],
      [1, 'Sum'],
    ]);
    const error = await callError(client, 'get_snippet', { id: snippet.id, version: 9 }, 'not_found');
    expect(error.hint).toContain('/versions');
  });

  it('refuses an update from a stale version, and one to code another snippet holds', async () => {
    const a = (await save({ title: 'a', code: 'a()' })).snippet;
    const b = (await save({ title: 'b', code: 'b()' })).snippet;
    await callOk(client, 'update_snippet', { id: a.id, expected_version: 1, description: 'first' });
    const stale = await callError(
      client,
      'update_snippet',
      { id: a.id, expected_version: 1, description: 'x' },
      'conflict',
    );
    expect(stale.message).toContain('version 2');
    const twin = await callError(
      client,
      'update_snippet',
      { id: b.id, expected_version: 1, code: 'a()\n' },
      'conflict',
    );
    expect(twin.message).toContain(a.id);
    await callError(client, 'update_snippet', { id: b.id, expected_version: 1 }, 'invalid_input');
    await callError(client, 'get_snippet', { id: 'sn-zzzzz' }, 'not_found');
  });

  it('copes with bad input', async () => {
    const { snippet } = await save({ title: 'x', code: 'x()' });
    const summary = await checkBadInputs(
      client,
      'update_snippet',
      updateSnippetTool.input,
      { id: snippet.id, expected_version: 1, title: 'y' },
      { allowedCodes: ['conflict'] },
    );
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('delete_snippet', () => {
  it('deletes the snippet with its versions and uses', async () => {
    const { snippet } = await save({ title: 'gone', code: 'gone()', tags: ['tmp'] });
    await callOk(client, 'update_snippet', { id: snippet.id, expected_version: 1, code: 'gone(1)' });
    await callOk(client, 'record_snippet_use', { id: snippet.id, outcome: 'worked' });
    const deleted = await callOk(client, 'delete_snippet', { id: snippet.id });
    expect(deleted).toEqual({ deleted: snippet.id, title: 'gone', versions_deleted: 1 });
    await callError(client, 'get_snippet', { id: snippet.id }, 'not_found');
    await expectRpcError(client.readResource({ uri: `snippets://${snippet.id}/versions` }), -32002);
    // The same code can be saved again: nothing of it is left.
    expect((await save({ title: 'back', code: 'gone(1)' })).duplicate_of).toBeNull();
    await callError(client, 'delete_snippet', { id: snippet.id }, 'not_found');
  });
});

describe('search_snippets', () => {
  it('finds code by the parts of its identifiers', async () => {
    const { snippet } = await save({ title: 'Rate limiter', code: DEBOUNCE, language: 'ts' });
    await save({ title: 'Other', code: 'const unrelated = 1;', language: 'ts' });
    const found = await search({ query: 'debounce' });
    expect(found.items.map((i) => i.id)).toEqual([snippet.id]);
    expect((await search({ query: 'input' })).items.map((i) => i.id)).toEqual([snippet.id]);
    // snake_case is split by the index's own tokenizer.
    const snake = await save({ title: 'snake', code: 'def parse_config_file(path): pass', language: 'py' });
    expect((await search({ query: 'config' })).items.map((i) => i.id)).toEqual([snake.snippet.id]);
  });

  it('returns metadata and the first lines of code, not the body', async () => {
    const code = Array.from({ length: 30 }, (_, i) => `line${i}()`).join('\n');
    await save({ title: 'Long one', code, language: 'js' });
    const [item] = (await search({ query: 'long' })).items;
    expect(item?.head).toBe('line0()\nline1()\nline2()\nline3()\nline4()');
    expect(item?.lines).toBe(30);
    expect(item).not.toHaveProperty('code');
  });

  it('ranks a title match above a body-only match', async () => {
    const body = await save({ title: 'Helpers', code: 'function retry() { /* backoff */ }\nconst x = 1;' });
    const title = await save({ title: 'Exponential backoff', code: 'function wait(n) { return 2 ** n; }' });
    const found = await search({ query: 'backoff' });
    expect(found.items.map((i) => i.id)).toEqual([title.snippet.id, body.snippet.id]);
  });

  it('ranks a snippet that worked above an equal one that failed', async () => {
    const a = await save({ title: 'Parse dates', code: 'parseDate(a)' });
    const b = await save({ title: 'Parse dates', code: 'parseDate(b)' });
    await callOk(client, 'record_snippet_use', { id: a.snippet.id, outcome: 'failed', note: 'wrong zone' });
    await callOk(client, 'record_snippet_use', { id: b.snippet.id, outcome: 'worked' });
    const found = await search({ query: 'parse dates' });
    expect(found.items.map((i) => [i.id, i.worked])).toEqual([
      [b.snippet.id, 1],
      [a.snippet.id, 0],
    ]);
    // And the other way round once the uses turn.
    for (let i = 0; i < 4; i++)
      await callOk(client, 'record_snippet_use', { id: a.snippet.id, outcome: 'worked' });
    expect((await search({ query: 'parse dates' })).items[0]?.id).toBe(a.snippet.id);
    expect((await search({ sort: 'most_used' })).items.map((i) => i.id)).toEqual([
      a.snippet.id,
      b.snippet.id,
    ]);
  });

  it('searches FTS syntax as plain words', async () => {
    const { snippet } = await save({ title: 'foo and bar', code: 'near(x) * y' });
    for (const query of ['foo AND (', 'foo"', 'NEAR', 'foo*', 'foo: bar', '^foo -bar']) {
      const found = await search({ query });
      expect(
        found.items.map((i) => i.id),
        query,
      ).toEqual([snippet.id]);
    }
    const none = await search({ query: '"' });
    expect(none.total).toBe(1);
    expect(none.note).toContain('No words');
    expect(await search({})).not.toHaveProperty('note');
  });

  it('filters by all the tags and by language (alias), with pages and a total', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await save({
            title: `Hook ${i}`,
            code: `useThing${i}()`,
            language: 'ts',
            tags: ['react', i % 2 ? 'hooks' : 'misc'],
          })
        ).snippet.id,
      );
    }
    await save({ title: 'Hook py', code: 'use_thing()', language: 'py', tags: ['react', 'hooks'] });
    const hooks = await search({ query: 'hook', tags: ['React', 'hooks'], language: 'typescript' });
    expect(hooks.total).toBe(2);
    expect(new Set(hooks.items.map((i) => i.id))).toEqual(new Set([ids[1], ids[3]]));
    const page1 = await search({ tags: ['react'], language: 'ts', sort: 'recent', limit: 3 });
    expect(page1.total).toBe(5);
    expect(page1.items.map((i) => i.id)).toEqual([ids[4], ids[3], ids[2]]);
    const page2 = await search({
      tags: ['react'],
      language: 'ts',
      sort: 'recent',
      limit: 3,
      cursor: page1.next_cursor,
    });
    expect(page2.items.map((i) => i.id)).toEqual([ids[1], ids[0]]);
    expect(page2.next_cursor).toBeNull();
    await callError(
      client,
      'search_snippets',
      { query: 'other', cursor: page1.next_cursor },
      'invalid_input',
    );
  });

  it('copes with bad input', async () => {
    const summary = await checkBadInputs(client, 'search_snippets', searchSnippetsTool.input, { query: 'x' });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('list_snippet_tags and record_snippet_use', () => {
  it('counts tags and languages', async () => {
    await save({ title: 'a', code: 'a()', language: 'ts', tags: ['x', 'y'] });
    await save({ title: 'b', code: 'b()', language: 'ts', tags: ['x'] });
    await save({ title: 'c', code: 'c()', language: 'go', tags: ['x'] });
    const listed = await callOk(client, 'list_snippet_tags', {});
    expect(listed).toEqual({
      tags: {
        items: [
          { tag: 'x', count: 3 },
          { tag: 'y', count: 1 },
        ],
        total: 2,
      },
      languages: {
        items: [
          { language: 'TypeScript', count: 2 },
          { language: 'Go', count: 1 },
        ],
        total: 2,
      },
    });
  });

  it('counts uses and refuses an unknown snippet', async () => {
    const { snippet } = await save({ title: 'u', code: 'u()' });
    await callOk(client, 'record_snippet_use', { id: snippet.id, outcome: 'worked' });
    const after = await callOk<{ worked: number; failed: number; last_used_at: string }>(
      client,
      'record_snippet_use',
      {
        id: snippet.id.toUpperCase(),
        outcome: 'failed',
        note: 'threw',
      },
    );
    expect(after).toMatchObject({ worked: 1, failed: 1 });
    expect(after.last_used_at).toMatch(/^\d{4}-/);
    await callError(client, 'record_snippet_use', { id: 'sn-00000', outcome: 'worked' }, 'not_found');
    await callError(client, 'record_snippet_use', { id: snippet.id, outcome: 'meh' }, 'invalid_input');
  });
});

describe('resources', () => {
  it('serves the raw code with its language MIME type', async () => {
    const ts = await save({ title: 'ts', code: DEBOUNCE, language: 'TypeScript' });
    const py = await save({ title: 'py', code: 'print(1)', language: 'python' });
    const plain = await save({ title: 'none', code: 'just words' });
    const go = await save({ title: 'go', code: 'package x', language: 'go' });
    const read = async (uri: string) => (await client.readResource({ uri })).contents[0];
    expect(await read(ts.uri)).toEqual({ uri: ts.uri, mimeType: 'text/x-typescript', text: DEBOUNCE });
    expect((await read(py.uri))?.mimeType).toBe('text/x-python');
    expect((await read(go.uri))?.mimeType).toBe('text/x-go');
    expect((await read(plain.uri))?.mimeType).toBe('text/plain');
    await expectRpcError(client.readResource({ uri: 'snippets://sn-nope1' }), -32002);
  });

  it('lists snippets by tag and by language', async () => {
    const a = await save({ title: 'a', code: 'a()', language: 'ts', tags: ['versions'] });
    const byTag = JSON.parse(await readText(client, 'snippets://tags/versions')) as {
      total: number;
      items: Summary[];
    };
    expect(byTag.items.map((i) => i.id)).toEqual([a.snippet.id]);
    const byLanguage = JSON.parse(await readText(client, 'snippets://languages/ts')) as {
      language: string;
      total: number;
    };
    expect(byLanguage).toMatchObject({ language: 'TypeScript', total: 1 });
    await expectRpcError(client.readResource({ uri: 'snippets://tags/none' }), -32002);
  });

  it('completes ids, tags and languages', async () => {
    const a = await save({ title: 'a', code: 'a()', language: 'ts', tags: ['react', 'redux'] });
    await save({ title: 'b', code: 'b()', language: 'python', tags: ['pandas'] });
    const complete = async (uri: string, name: string, value: string) =>
      (await client.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value } })).completion
        .values;
    expect(await complete('snippets://{id}', 'id', a.snippet.id.slice(0, 6))).toContain(a.snippet.id);
    expect(await complete('snippets://tags/{tag}', 'tag', 'RE')).toEqual(['react', 'redux']);
    expect(await complete('snippets://languages/{language}', 'language', 'Py')).toEqual(['Python']);
  });

  it('notifies subscribers of a snippet when it changes', async () => {
    const { snippet, uri } = await save({ title: 'w', code: 'w()', tags: ['watched'] });
    const updates = watchResourceUpdates(client);
    await client.subscribeResource({ uri });
    await client.subscribeResource({ uri: 'snippets://tags/watched' });
    await callOk(client, 'update_snippet', { id: snippet.id, expected_version: 1, code: 'w(1)' });
    await expect.poll(() => [...new Set(updates)].sort()).toEqual([uri, 'snippets://tags/watched'].sort());
  });
});

const TOOLS = [
  getSnippetTool,
  deleteSnippetTool,
  listSnippetTagsTool,
  recordSnippetUseTool,
  exportSnippetsTool,
];

describe('bad input on every other tool', () => {
  it('is refused in plain words, never crashes the server', async () => {
    const { snippet } = await save({ title: 'target', code: 'target()' });
    const valid: Record<string, Record<string, unknown>> = {
      get_snippet: { id: snippet.id },
      delete_snippet: { id: 'sn-00000' },
      list_snippet_tags: { limit: 5 },
      record_snippet_use: { id: snippet.id, outcome: 'worked' },
      export_snippets: { format: 'shipyard' },
    };
    for (const [name, args] of Object.entries(valid)) {
      const tool = TOOLS.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      const summary = await checkBadInputs(client, name, tool.input, args, { allowedCodes: ['not_found'] });
      expect(summary.rejected, name).toBeGreaterThan(0);
    }
  });
});
