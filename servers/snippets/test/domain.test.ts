// The pure rules, without a database or a client.
import { describe, expect, it } from 'vitest';
import { parseOwn, parseVscode, prefixOf, scopeLanguage, stripJsonComments } from '../src/domain/formats.js';
import {
  guessFromContent,
  languageMimeType,
  resolveLanguage,
  shebangInterpreter,
} from '../src/domain/languages.js';
import {
  contentHash,
  headOf,
  identifierWords,
  normaliseCode,
  normaliseTags,
  touchedUris,
  useFactor,
} from '../src/domain/model.js';

describe('model', () => {
  it('splits compound identifiers into their parts', () => {
    expect(identifierWords('const x = debounceInput(HTTPServer, parse2D, snake_case, plain)')).toBe(
      'debounce input http server parse 2 d',
    );
  });

  it('normalises code for the content hash', () => {
    expect(normaliseCode('\n\na  \r\nb\t\r\n\r\n')).toBe('a\nb');
    expect(contentHash('a\r\nb  \n')).toBe(contentHash('a\nb'));
    expect(contentHash('a\nb')).not.toBe(contentHash('a\n b'));
  });

  it('lower-cases and deduplicates tags', () => {
    expect(normaliseTags(['React', ' react ', 'Data Fetching'])).toEqual(['react', 'data-fetching']);
    expect(() => normaliseTags([' '])).toThrow('is not a tag');
  });

  it('weighs uses into a bounded factor', () => {
    expect(useFactor(0, 0)).toBe(1);
    expect(useFactor(1, 0)).toBeCloseTo(1 + 0.25 / 3);
    expect(useFactor(0, 1)).toBeCloseTo(1 - 0.25 / 3);
    expect(useFactor(1000, 0)).toBeLessThan(1.25);
  });

  it('shows the first five lines', () => {
    expect(headOf('1\r\n2\n3\n4\n5\n6')).toBe('1\n2\n3\n4\n5');
  });

  it('names the URIs a change touches', () => {
    expect(touchedUris('sn-abcde', { tags: ['a b'], language: 'C++' })).toEqual([
      'snippets://sn-abcde',
      'snippets://sn-abcde/versions',
      'snippets://tags/a%20b',
      'snippets://languages/C%2B%2B',
    ]);
  });
});

describe('languages', () => {
  it('reads shebangs', () => {
    expect(shebangInterpreter('#!/usr/bin/env -S python3.12 -u\n')).toBe('python3');
    expect(shebangInterpreter('#!/bin/bash\n')).toBe('bash');
    expect(shebangInterpreter('echo')).toBeUndefined();
  });

  it('guesses only from telling patterns', () => {
    expect(guessFromContent('{"a": 1}')).toBe('JSON');
    expect(guessFromContent('hello world')).toBeUndefined();
    expect(guessFromContent('use std::io;\nfn main() {\n    println!("hi");\n}')).toBe('Rust');
  });

  it('gives MIME types from the data, or text/x-<name>', async () => {
    expect(await languageMimeType('TypeScript')).toBe('text/x-typescript');
    expect(await languageMimeType('Python')).toBe('text/x-python');
    expect(await languageMimeType('Shell')).toBe('text/x-sh');
    expect(await languageMimeType(null)).toBe('text/plain');
    expect(await resolveLanguage('C#')).toBe('C#');
  });
});

describe('formats', () => {
  it('reads JSON with comments and trailing commas, leaving strings alone', () => {
    expect(JSON.parse(stripJsonComments('{ "a": "// no /* c */", // c\n "b": [1,], /* x */ }'))).toEqual({
      a: '// no /* c */',
      b: [1],
    });
  });

  it('turns VS Code entries into fields or reasons', () => {
    const entries = parseVscode(
      '{"Log": {"prefix": "log", "body": ["a", "b"], "scope": "typescript"}, "X": {}}',
    );
    expect(entries[0]).toMatchObject({
      kind: 'fields',
      scope: 'typescript',
      fields: { title: 'Log', code: 'a\nb' },
    });
    expect(entries[1]).toMatchObject({ kind: 'rejected', name: 'X' });
    expect(scopeLanguage('shellscript,bash')).toBe('Shell');
    expect(prefixOf('Fetch JSON (with retry)!')).toBe('fetch-json-with-retry');
  });

  it('refuses a record whose versions are not older than it', () => {
    const record = {
      id: 'sn-abcde',
      title: 't',
      code: 'c',
      language: null,
      description: '',
      tags: [],
      source: null,
      version: 1,
      created_at: 'x',
      updated_at: 'x',
      worked: 0,
      failed: 0,
      last_used_at: null,
      versions: [
        {
          title: 't',
          code: 'c',
          language: null,
          description: '',
          tags: [],
          source: null,
          version: 1,
          saved_at: 'x',
        },
      ],
      uses: [],
    };
    const [entry] = parseOwn(JSON.stringify({ format: 'shipyard-snippets', version: 1, snippets: [record] }));
    expect(entry).toMatchObject({ kind: 'rejected', reason: expect.stringContaining('not older') });
  });
});
