/** The snippet model and its rules: pure functions over plain values (no database, no MCP types). */
import { createHash, randomInt } from 'node:crypto';
import { Conflict, InvalidInput } from '@shipyard/core';

export const MAX_CODE_CHARS = 200_000;
export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 4_000;
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 40;
export const MAX_SOURCE_CHARS = 1_000;
export const MAX_NOTE_CHARS = 2_000;
/** Lines of code a search result or a list shows. */
export const HEAD_LINES = 5;
/** Characters of those lines at most. */
export const HEAD_CHARS = 400;

export const OUTCOMES = ['worked', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What a save or an update sets. */
export interface SnippetFields {
  title: string;
  code: string;
  language: string | null;
  description: string;
  tags: string[];
  source: string | null;
}

export interface Snippet extends SnippetFields {
  id: string;
  version: number;
  created_at: string;
  updated_at: string;
  worked: number;
  failed: number;
  last_used_at: string | null;
}

/** A snippet as lists show it: metadata and the first lines of code. */
export interface SnippetSummary {
  id: string;
  title: string;
  language: string | null;
  tags: string[];
  description: string;
  head: string;
  lines: number;
  version: number;
  worked: number;
  failed: number;
  updated_at: string;
}

/** An earlier state of a snippet, kept by every edit. */
export interface SnippetVersion extends SnippetFields {
  version: number;
  saved_at: string;
}

export interface SnippetUse {
  outcome: Outcome;
  note: string;
  at: string;
}

/** Everything about one snippet, as the server's own export format holds it. */
export interface SnippetRecord extends Snippet {
  versions: SnippetVersion[];
  uses: SnippetUse[];
}

/** `sn-` and five base-36 characters. */
export const SNIPPET_ID = /^sn-[0-9a-z]{5}$/;
const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export function newSnippetId(): string {
  let id = 'sn-';
  for (let i = 0; i < 5; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

export const snippetUri = (id: string) => `snippets://${id}`;
export const versionsUri = (id: string) => `snippets://${id}/versions`;
export const tagUri = (tag: string) => `snippets://tags/${encodeURIComponent(tag)}`;
export const languageUri = (language: string) => `snippets://languages/${encodeURIComponent(language)}`;

/** The URIs a change to a snippet touches: its code, its versions, and its tags' and languages' lists. */
export function touchedUris(id: string, ...states: (Pick<SnippetFields, 'tags' | 'language'> | undefined)[]) {
  const uris = new Set([snippetUri(id), versionsUri(id)]);
  for (const state of states) {
    if (!state) continue;
    for (const tag of state.tags) uris.add(tagUri(tag));
    if (state.language) uris.add(languageUri(state.language));
  }
  return [...uris];
}

/** A tag as stored: trimmed, lower case, inner blanks as `-`. */
export function normaliseTag(tag: string): string {
  return tag.normalize('NFC').trim().toLowerCase().replace(/\s+/g, '-');
}

/** Tags lower-cased and deduplicated, in the order given; an empty or over-long tag is refused. */
export function normaliseTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = normaliseTag(raw);
    if (tag === '' || tag.length > MAX_TAG_CHARS || /[\p{Cc}/]/u.test(tag)) {
      throw new InvalidInput(`Tag ${JSON.stringify(raw)} is not a tag`, {
        hint: `Give tags of 1-${MAX_TAG_CHARS} characters without / or control characters, e.g. "react"`,
      });
    }
    if (!out.includes(tag)) out.push(tag);
  }
  if (out.length > MAX_TAGS) {
    throw new InvalidInput(`A snippet has at most ${MAX_TAGS} tags`, { hint: 'Keep the most telling tags' });
  }
  return out;
}

/** Code as compared for duplicates: LF line endings, no trailing blanks on a line, no blank lines at the ends. */
export function normaliseCode(code: string): string {
  return code
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v]+$/, ''))
    .join('\n')
    .replace(/^\n+/, '')
    .replace(/\n+$/, '');
}

/** SHA-256 of the normalised code, hex: equal for code that differs only in line endings and trailing blanks. */
export const contentHash = (code: string) => createHash('sha256').update(normaliseCode(code)).digest('hex');

/** The first lines of code, for lists. */
export function headOf(code: string): string {
  const lines = code.replace(/\r\n?/g, '\n').split('\n', HEAD_LINES);
  const head = lines.join('\n');
  return head.length > HEAD_CHARS ? `${head.slice(0, HEAD_CHARS - 1)}…` : head;
}

export const lineCount = (code: string) => (code === '' ? 0 : code.split('\n').length);

/**
 * The parts of compound identifiers, for the index next to the code: `debounceInput` adds `debounce input`,
 * `HTTPServer` adds `http server`, `parse2D` adds `parse 2 d`. Words the tokenizer already splits (snake_case,
 * kebab-case) and plain words add nothing. Each part once.
 */
export function identifierWords(code: string): string {
  const parts = new Set<string>();
  for (const [word] of code.matchAll(/[A-Za-z][A-Za-z0-9]*/g)) {
    // Only mixed case splits: a word all in one case is indexed whole already.
    if (!/[a-z]/.test(word) || !/[A-Z]/.test(word.slice(1))) continue;
    for (const [part] of word.matchAll(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+[a-z]*/g)) {
      parts.add(part.toLowerCase());
    }
  }
  return [...parts].join(' ');
}

/**
 * How much uses move a snippet in relevance order: bm25 (negative, lower is better) is multiplied by
 * 1 + USE_WEIGHT × (worked − failed) / (worked + failed + 2), between 1 − USE_WEIGHT and 1 + USE_WEIGHT, so
 * a snippet that worked ranks above an equal one that failed, and uses never outweigh a title match.
 */
export const USE_WEIGHT = 0.25;

export function useFactor(worked: number, failed: number): number {
  return 1 + (USE_WEIGHT * (worked - failed)) / (worked + failed + 2);
}

/** bm25 weights of the index's columns: title, tags, description, code, identifier parts. */
export const BM25_WEIGHTS = [10, 6, 2, 1, 1] as const;

export const SORTS = ['relevance', 'recent', 'most_used'] as const;
export type Sort = (typeof SORTS)[number];

/** Checks a snippet's fields before they are written; the store relies on it. */
export function checkFields(fields: SnippetFields): SnippetFields {
  if (fields.title.trim() === '') {
    throw new InvalidInput('`title` is empty', { hint: 'Give the snippet a short title of what it does' });
  }
  if (normaliseCode(fields.code) === '') {
    throw new InvalidInput('`code` is blank', { hint: 'Pass the code to keep in `code`' });
  }
  if (fields.code.length > MAX_CODE_CHARS) {
    throw new InvalidInput(`\`code\` is longer than ${MAX_CODE_CHARS} characters`, {
      hint: 'Keep the part worth reusing',
    });
  }
  return { ...fields, title: fields.title.trim(), tags: normaliseTags(fields.tags) };
}

/** The fields after an update: each one given replaces the old; null clears language and source. */
export function patched(before: SnippetFields, set: Partial<SnippetFields>): SnippetFields {
  return {
    title: set.title ?? before.title,
    code: set.code ?? before.code,
    language: set.language !== undefined ? set.language : before.language,
    description: set.description ?? before.description,
    tags: set.tags ?? before.tags,
    source: set.source !== undefined ? set.source : before.source,
  };
}

/** The refusal of a save or update whose code another snippet (`id`) already holds. */
export const codeHeldBy = (id: string) =>
  new Conflict(`${id} already holds this code`, {
    hint: `Read ${id} with \`get_snippet\`, or delete one of the two with \`delete_snippet\``,
  });

/** The refusal of a write whose expected_version is not the snippet's. */
export function versionMismatch(id: string, expected: number, actual: number) {
  return {
    message: `${id} is at version ${actual}, not ${expected}: it changed since you read it`,
    hint: `Read it again with \`get_snippet\` and apply your edit to version ${actual}`,
  };
}
