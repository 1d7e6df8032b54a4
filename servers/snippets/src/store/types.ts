/**
 * The storage of snippets, behind one async interface so that another engine can stand in for SQLite.
 * Every write decides and writes in one transaction and returns the resource URIs it changed.
 */
import type { Page } from '@shipyard/core';
import type {
  Outcome,
  Snippet,
  SnippetFields,
  SnippetRecord,
  SnippetSummary,
  SnippetVersion,
  Sort,
} from '../domain/model.js';

export interface Changed {
  changed: string[];
}

export interface SearchQuery {
  /** User text, searched as words; undefined or blank lists by the filters. */
  query?: string | undefined;
  tags?: readonly string[] | undefined;
  language?: string | undefined;
  sort: Sort;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Counted<T> {
  items: T[];
  total: number;
}

export interface SnippetsStore {
  /** A new snippet, or the existing one with the same normalised code (`duplicate: true`). */
  saveSnippet(fields: SnippetFields): Promise<{ snippet: Snippet; duplicate: boolean } & Changed>;
  /** The snippet now, or as it was at `version`. NotFound when either is missing. */
  getSnippet(
    id: string,
    version?: number,
  ): Promise<{ snippet: Snippet | (SnippetVersion & { id: string }); current: number; versions: number }>;
  /** Apply `set` if the snippet is at `expected`; the state before is kept as a version. */
  updateSnippet(
    id: string,
    expected: number,
    set: Partial<SnippetFields>,
  ): Promise<{ snippet: Snippet; previous: number } & Changed>;
  /** Delete a snippet with its versions and uses. */
  deleteSnippet(
    id: string,
    expected?: number,
  ): Promise<{ id: string; title: string; versions: number } & Changed>;
  searchSnippets(query: SearchQuery): Promise<Page<SnippetSummary> & { note?: string }>;
  /** Tags and languages with how many snippets have each, most used first. */
  listTags(limit: number): Promise<{
    tags: Counted<{ tag: string; count: number }>;
    languages: Counted<{ language: string; count: number }>;
  }>;
  recordUse(id: string, outcome: Outcome, note: string): Promise<{ snippet: Snippet } & Changed>;
  /** The kept versions of a snippet, newest first, without their code. */
  listVersions(
    id: string,
  ): Promise<{ id: string; current: number; versions: Omit<SnippetVersion, 'code'>[] }>;
  /** Snippets with a tag (or of a language), newest first, at most `limit`. */
  listBy(filter: { tag: string } | { language: string }, limit: number): Promise<Counted<SnippetSummary>>;
  /** Whole records for export, in id order, a page at a time; stops early past `maxChars` of code. */
  exportRecords(
    filter: {
      ids?: readonly string[] | undefined;
      tags?: readonly string[] | undefined;
      language?: string | undefined;
    },
    page: { limit?: number | undefined; cursor?: string | undefined },
    maxChars: number,
  ): Promise<Page<SnippetRecord>>;
  /** Write one imported record as it is (id kept when free). Duplicate code gives the existing id. */
  importRecord(record: SnippetRecord): Promise<{ id: string; duplicate: boolean } & Changed>;
  completeIds(prefix: string): Promise<string[]>;
  completeTags(prefix: string): Promise<string[]>;
  completeLanguages(prefix: string): Promise<string[]>;
  /**
   * Report the URIs other processes on the same data change, or, when changes may have been missed, call
   * `changedAll`; returns the function that stops it.
   */
  watch(changed: (...uris: string[]) => void, changedAll?: () => void): () => void;
  /** Open what is opened lazily (the database). */
  warmUp(): void | Promise<void>;
  close(): void | Promise<void>;
}
