import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Connected, callError, callOk, checkBadInputs } from '@shipyard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import importSnippetsTool from '../src/tools/import_snippets.js';
import { connectSnippets } from './helpers.js';

interface Imported {
  created: number;
  duplicates: number;
  rejected: number;
  created_ids: { id: string; title: string }[];
  duplicate_entries: { entry: string; duplicate_of: string }[];
  rejected_entries: { entry: string; reason: string }[];
}
interface Exported {
  content: string;
  count: number;
  total: number;
  next_cursor: string | null;
}

let client: Connected;
const dirs: string[] = [];
beforeEach(async () => {
  ({ client } = await connectSnippets());
});
afterEach(async () => {
  await client.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A VS Code snippets file as a person writes one: comments, a trailing comma, body as lines or a string. */
const VSCODE_FILE = `{
  // Logging helpers
  "Print to console": {
    "scope": "javascript,typescript",
    "prefix": "log",
    "body": ["console.log('$1');", "$2"],
    "description": "Log output to console"
  },
  "Python main": {
    "prefix": ["main", "ifmain"],
    "body": "if __name__ == \\"__main__\\":\\n    main()",
    "scope": "python",
  },
  "No body": { "prefix": "nb" },
  "Bad body": { "prefix": "bb", "body": 42 },
  "Blank": { "prefix": "bl", "body": ["  ", ""] },
  /* the same code as the first, with other line endings */
  "Print again": { "prefix": "log2", "body": "console.log('$1');\\r\\n$2\\r\\n" },
  "Call": { "prefix": "call", "body": "x()" }
}`;

describe('import_snippets', () => {
  it('imports a hand-written VS Code file: good, duplicate and broken entries', async () => {
    const result = await callOk<Imported>(client, 'import_snippets', {
      format: 'vscode',
      content: VSCODE_FILE,
      tags: ['Imported'],
    });
    expect(result).toMatchObject({ created: 3, duplicates: 1, rejected: 3 });
    expect(result.created_ids.map((c) => c.title)).toEqual(['Print to console', 'Python main', 'Call']);
    const [print] = result.created_ids;
    expect(result.duplicate_entries).toEqual([{ entry: 'Print again', duplicate_of: print?.id }]);
    expect(result.rejected_entries.map((r) => r.entry)).toEqual(['No body', 'Bad body', 'Blank']);
    expect(result.rejected_entries[0]?.reason).toContain('body');
    const got = await callOk<{
      snippet: { code: string; language: string; tags: string[]; description: string };
    }>(client, 'get_snippet', { id: print?.id });
    expect(got.snippet).toEqual(
      expect.objectContaining({
        code: "console.log('$1');\n$2",
        language: 'JavaScript',
        tags: ['imported'],
        description: 'Log output to console',
      }),
    );
    const main = await callOk<{ snippet: { language: string } }>(client, 'get_snippet', {
      id: result.created_ids[1]?.id,
    });
    expect(main.snippet.language).toBe('Python');
  });

  it('refuses a file that is not JSON, and sends progress on a large import', async () => {
    const error = await callError(
      client,
      'import_snippets',
      { format: 'vscode', content: '{ nope' },
      'invalid_input',
    );
    expect(error.message).toContain('not JSON');
    await callError(client, 'import_snippets', { format: 'shipyard', content: '[]' }, 'invalid_input');

    const many = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [`s${i}`, { prefix: `s${i}`, body: `call${i}()` }]),
    );
    const progress: number[] = [];
    const result = await client.callTool(
      {
        name: 'import_snippets',
        arguments: { format: 'vscode', content: JSON.stringify(many), language: 'js' },
      },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.structuredContent).toMatchObject({ created: 120, duplicates: 0, rejected: 0 });
    expect(progress).toEqual([0, 50, 100, 120]);
  });

  it('copes with bad input', async () => {
    const summary = await checkBadInputs(client, 'import_snippets', importSnippetsTool.input, {
      format: 'vscode',
      content: '{}',
    });
    expect(summary.rejected).toBeGreaterThan(0);
  });
});

describe('export_snippets', () => {
  it('exports to a new data dir and imports back equal: versions and uses included', async () => {
    const a = await callOk<{ snippet: { id: string } }>(client, 'save_snippet', {
      title: 'Retry',
      code: 'async function retry(fn) {\n  return fn();\n}',
      language: 'js',
      tags: ['async'],
      description: 'Retry a call',
      source: 'src/retry.js',
    });
    await callOk(client, 'update_snippet', {
      id: a.snippet.id,
      expected_version: 1,
      code: 'async function retry(fn, n = 3) {}',
    });
    await callOk(client, 'record_snippet_use', { id: a.snippet.id, outcome: 'worked', note: 'fine' });
    await callOk(client, 'record_snippet_use', { id: a.snippet.id, outcome: 'failed' });
    await callOk(client, 'save_snippet', { title: 'Sql', code: 'SELECT 1;', tags: ['db', 'sql'] });

    const exported = await callOk<Exported>(client, 'export_snippets', { format: 'shipyard' });
    expect(exported).toMatchObject({ count: 2, total: 2, next_cursor: null });

    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-snippets-'));
    dirs.push(dataDir);
    const other = await connectSnippets({ dataDir });
    try {
      const imported = await callOk<Imported>(other.client, 'import_snippets', {
        format: 'shipyard',
        content: exported.content,
      });
      expect(imported).toMatchObject({ created: 2, duplicates: 0, rejected: 0 });
      const again = await callOk<Exported>(other.client, 'export_snippets', { format: 'shipyard' });
      expect(JSON.parse(again.content)).toEqual(JSON.parse(exported.content));
      const version1 = await callOk<{ snippet: { code: string } }>(other.client, 'get_snippet', {
        id: a.snippet.id,
        version: 1,
      });
      expect(version1.snippet.code).toBe('async function retry(fn) {\n  return fn();\n}');
      // Importing the same file again creates nothing.
      const twice = await callOk<Imported>(other.client, 'import_snippets', {
        format: 'shipyard',
        content: exported.content,
      });
      expect(twice).toMatchObject({ created: 0, duplicates: 2 });
    } finally {
      await other.client.close();
    }
  });

  it('exports VS Code snippets, in pages, filtered', async () => {
    for (let i = 0; i < 3; i++) {
      await callOk(client, 'save_snippet', {
        title: `Same title`,
        code: `echo ${i}`,
        language: 'sh',
        tags: ['cli'],
      });
    }
    await callOk(client, 'save_snippet', { title: 'Other', code: 'x = 1', language: 'py' });
    const first = await callOk<Exported>(client, 'export_snippets', {
      format: 'vscode',
      tags: ['cli'],
      limit: 2,
    });
    expect(first).toMatchObject({ count: 2, total: 3 });
    expect(JSON.parse(first.content)).toEqual({
      'Same title': { prefix: 'same-title', body: ['echo 0'], scope: 'shellscript' },
      'Same title (2)': { prefix: 'same-title', body: ['echo 1'], scope: 'shellscript' },
    });
    const second = await callOk<Exported>(client, 'export_snippets', {
      format: 'vscode',
      tags: ['cli'],
      limit: 2,
      cursor: first.next_cursor,
    });
    expect(second).toMatchObject({ count: 1, next_cursor: null });
    // A VS Code export imports back as duplicates of what it came from.
    const back = await callOk<Imported>(client, 'import_snippets', {
      format: 'vscode',
      content: first.content,
    });
    expect(back).toMatchObject({ created: 0, duplicates: 2 });
  });
});
