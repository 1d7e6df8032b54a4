/**
 * Import and export formats: VS Code snippets JSON and this server's own JSON, which holds everything
 * (versions and uses included). Parsing turns a file into entries, each ready to save or refused with a
 * reason, so one bad entry never stops the others.
 */
import { z } from '@shipyard/core';
import {
  MAX_CODE_CHARS,
  MAX_DESCRIPTION_CHARS,
  MAX_NOTE_CHARS,
  MAX_SOURCE_CHARS,
  MAX_TITLE_CHARS,
  OUTCOMES,
  SNIPPET_ID,
  type SnippetFields,
  type SnippetRecord,
} from './model.js';

export const FORMATS = ['shipyard', 'vscode'] as const;
export type Format = (typeof FORMATS)[number];

/** The `format` field of the server's own export. */
export const OWN_FORMAT = 'shipyard-snippets';
export const OWN_FORMAT_VERSION = 1;

/** An entry of an import file: a new snippet (VS Code), a whole record (own format), or a refusal. */
export type ImportEntry =
  | { name: string; kind: 'fields'; fields: SnippetFields; scope?: string }
  | { name: string; kind: 'record'; record: SnippetRecord }
  | { name: string; kind: 'rejected'; reason: string };

/** JSON with comments and trailing commas, as VS Code writes snippet files, made plain JSON. */
export function stripJsonComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

function parseJson(content: string, format: Format): unknown {
  try {
    return JSON.parse(format === 'vscode' ? stripJsonComments(content) : content);
  } catch (error) {
    throw new Error(`content is not JSON: ${(error as Error).message}`);
  }
}

const lines = z.union([z.string(), z.array(z.string())]);
const vscodeEntry = z.object({
  prefix: lines.optional(),
  body: lines,
  description: lines.optional(),
  scope: z.string().optional(),
});

const joined = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value.join('\n') : (value ?? '');

/** The first problem zod found, in plain words. */
const problem = (error: z.ZodError) => {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'not a valid entry';
};

/** Entries of a VS Code snippets file: `{ "name": { prefix, body, description, scope } }`. */
export function parseVscode(content: string): ImportEntry[] {
  const data = parseJson(content, 'vscode');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error('a VS Code snippets file is one JSON object of named snippets');
  }
  return Object.entries(data).map(([name, value]): ImportEntry => {
    const parsed = vscodeEntry.safeParse(value);
    if (!parsed.success) return { name, kind: 'rejected', reason: problem(parsed.error) };
    const { prefix, body, description, scope } = parsed.data;
    const title = name.trim() || joined(prefix).trim();
    const code = joined(body);
    if (title === '') return { name, kind: 'rejected', reason: 'no name and no prefix to title it' };
    if (title.length > MAX_TITLE_CHARS)
      return { name, kind: 'rejected', reason: `name over ${MAX_TITLE_CHARS} characters` };
    if (code.trim() === '') return { name, kind: 'rejected', reason: 'body is empty' };
    if (code.length > MAX_CODE_CHARS)
      return { name, kind: 'rejected', reason: `body over ${MAX_CODE_CHARS} characters` };
    const fields: SnippetFields = {
      title,
      code,
      language: null,
      description: joined(description).slice(0, MAX_DESCRIPTION_CHARS),
      tags: [],
      source: null,
    };
    return scope ? { name, kind: 'fields', fields, scope } : { name, kind: 'fields', fields };
  });
}

const fieldsSchema = {
  title: z.string().min(1).max(MAX_TITLE_CHARS),
  code: z.string().min(1).max(MAX_CODE_CHARS),
  language: z.string().max(100).nullable(),
  description: z.string().max(MAX_DESCRIPTION_CHARS),
  tags: z.array(z.string()).max(20),
  source: z.string().max(MAX_SOURCE_CHARS).nullable(),
};
const recordSchema = z.object({
  id: z.string().regex(SNIPPET_ID),
  ...fieldsSchema,
  version: z.number().int().min(1),
  created_at: z.string().max(40),
  updated_at: z.string().max(40),
  worked: z.number().int().min(0),
  failed: z.number().int().min(0),
  last_used_at: z.string().max(40).nullable(),
  versions: z.array(
    z.object({ ...fieldsSchema, version: z.number().int().min(1), saved_at: z.string().max(40) }),
  ),
  uses: z.array(
    z.object({ outcome: z.enum(OUTCOMES), note: z.string().max(MAX_NOTE_CHARS), at: z.string().max(40) }),
  ),
});

/** Entries of the server's own export: `{ format: "shipyard-snippets", version: 1, snippets: [...] }`. */
export function parseOwn(content: string): ImportEntry[] {
  const data = parseJson(content, 'shipyard') as { format?: unknown; snippets?: unknown };
  if (
    typeof data !== 'object' ||
    data === null ||
    data.format !== OWN_FORMAT ||
    !Array.isArray(data.snippets)
  ) {
    throw new Error(
      `this server's format is an object with "format": "${OWN_FORMAT}" and a "snippets" array`,
    );
  }
  return data.snippets.map((value: unknown, i): ImportEntry => {
    const name = (value as { id?: unknown })?.id;
    const label = typeof name === 'string' ? name.slice(0, 40) : `#${i + 1}`;
    const parsed = recordSchema.safeParse(value);
    if (!parsed.success) return { name: label, kind: 'rejected', reason: problem(parsed.error) };
    const record = parsed.data as SnippetRecord;
    if (record.versions.some((v) => v.version >= record.version)) {
      return { name: label, kind: 'rejected', reason: 'a kept version is not older than the snippet' };
    }
    return { name: label, kind: 'record', record };
  });
}

export function parseImport(format: Format, content: string): ImportEntry[] {
  return format === 'vscode' ? parseVscode(content) : parseOwn(content);
}

/** A VS Code prefix from a title: its words in lower case, joined with `-`. */
export const prefixOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'snippet';

/** VS Code's language id of a Linguist language name (`Shell` is shellscript, `C++` cpp). */
export function vscodeScope(language: string | null): string | undefined {
  if (!language) return undefined;
  const special: Record<string, string> = {
    Shell: 'shellscript',
    'C++': 'cpp',
    'C#': 'csharp',
    'Objective-C': 'objective-c',
  };
  return special[language] ?? language.toLowerCase().replace(/\s+/g, '');
}

/** A VS Code scope's first language id as a name to resolve (`shellscript` is Shell). */
export function scopeLanguage(scope: string): string | undefined {
  const first = scope.split(',')[0]?.trim().toLowerCase();
  if (!first) return undefined;
  const special: Record<string, string> = {
    shellscript: 'Shell',
    cpp: 'C++',
    csharp: 'C#',
    typescriptreact: 'TSX',
    javascriptreact: 'JavaScript',
  };
  return special[first] ?? first;
}

/** Snippets as a VS Code snippets file; titles that repeat get a number. */
export function toVscode(snippets: readonly SnippetRecord[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const snippet of snippets) {
    let name = snippet.title;
    for (let n = 2; name in out; n++) name = `${snippet.title} (${n})`;
    const scope = vscodeScope(snippet.language);
    out[name] = {
      prefix: prefixOf(snippet.title),
      body: snippet.code.replace(/\r\n?/g, '\n').split('\n'),
      ...(snippet.description ? { description: snippet.description } : {}),
      ...(scope ? { scope } : {}),
    };
  }
  return out;
}

export function toOwn(snippets: readonly SnippetRecord[]) {
  return { format: OWN_FORMAT, version: OWN_FORMAT_VERSION, snippets };
}
