/** Rows as both stores read them, and what they turn into. */
import { NotFound } from '@shipyard/core';
import type { Snippet, SnippetSummary } from '../domain/model.js';

export interface Row {
  n: number;
  id: string;
  title: string;
  language: string | null;
  description: string;
  tags: string;
  source: string | null;
  version: number;
  worked: number;
  failed: number;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
  head: string;
  lines: number;
  code?: string;
}

export const META = `s.n, s.id, s.title, s.language, s.description, s.tags, s.source, s.version, s.worked, s.failed,
  s.last_used_at, s.created_at, s.updated_at, s.head, s.lines`;
/** The description as a list shows it. */
const LIST_DESCRIPTION_CHARS = 300;

export const toSnippet = (row: Row): Snippet => ({
  id: row.id,
  title: row.title,
  code: row.code ?? '',
  language: row.language,
  description: row.description,
  tags: JSON.parse(row.tags) as string[],
  source: row.source,
  version: row.version,
  created_at: row.created_at,
  updated_at: row.updated_at,
  worked: row.worked,
  failed: row.failed,
  last_used_at: row.last_used_at,
});

export const toSummary = (row: Row): SnippetSummary => ({
  id: row.id,
  title: row.title,
  language: row.language,
  tags: JSON.parse(row.tags) as string[],
  description:
    row.description.length > LIST_DESCRIPTION_CHARS
      ? `${row.description.slice(0, LIST_DESCRIPTION_CHARS - 1)}…`
      : row.description,
  head: row.head,
  lines: row.lines,
  version: row.version,
  worked: row.worked,
  failed: row.failed,
  updated_at: row.updated_at,
});

export const notFound = (id: string) =>
  new NotFound(`No snippet ${JSON.stringify(id)}`, {
    hint: 'Find the id with `search_snippets`; ids look like sn-7f3k2',
  });

export const nowIso = () => new Date().toISOString();
