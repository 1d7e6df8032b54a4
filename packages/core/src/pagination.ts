import { z } from 'zod';
import { InvalidInput } from './errors.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** Input fields every list tool accepts; spread into a tool's `input`. */
export const paginationInput = {
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Page size (default ${DEFAULT_LIMIT})`),
  cursor: z.string().max(500).optional().describe('next_cursor of the previous page'),
};

/** Output fields of a paged list: spread into a tool's `output` next to `items`. */
export const paginationOutput = {
  next_cursor: z.string().nullable().describe('Cursor of the next page; null at the end'),
  total: z.number().int().describe('Matches in all pages'),
};

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
  total: number;
}

/**
 * The sort values of the last item of a page (e.g. its updated_at and id), for keyset paging: the next page
 * starts after that item, so a change to earlier items between two calls neither skips nor repeats one.
 */
export type SortKey = readonly (string | number)[];

interface CursorState {
  /** How many items the pages before this one returned. */
  o: number;
  /** Fingerprint of the query the cursor belongs to, so a cursor is not replayed on another query. */
  q?: string;
  /** Keyset paging: the sort key of the last item returned. */
  k?: SortKey;
}

/** Cursors are opaque to clients: base64url JSON of an offset, a query fingerprint and maybe a sort key. */
export function encodeCursor(offset: number, query?: string, after?: SortKey): string {
  const state: CursorState = { o: offset };
  if (query !== undefined) state.q = fingerprint(query);
  if (after !== undefined) state.k = after;
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, query?: string): number {
  return readCursor(cursor, query).offset;
}

const isSortKey = (value: unknown): value is SortKey =>
  Array.isArray(value) &&
  value.length <= 8 &&
  value.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)));

function readCursor(cursor: string | undefined, query?: string): { offset: number; after?: SortKey } {
  if (cursor === undefined || cursor === '') return { offset: 0 };
  let state: CursorState;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorState;
  } catch {
    throw badCursor();
  }
  if (typeof state !== 'object' || state === null || !Number.isSafeInteger(state.o) || state.o < 0) {
    throw badCursor();
  }
  if (state.k !== undefined && !isSortKey(state.k)) throw badCursor();
  if (query !== undefined && state.q !== undefined && state.q !== fingerprint(query)) {
    throw new InvalidInput('This cursor belongs to a different query', {
      hint: 'Repeat the same query with the cursor, or drop the cursor to start from the first page',
    });
  }
  return state.k === undefined ? { offset: state.o } : { offset: state.o, after: state.k };
}

/** The error for a cursor this server did not issue (garbled, forged, or of another shape). */
export function badCursor(): InvalidInput {
  return new InvalidInput('`cursor` is not a cursor this server issued', {
    hint: 'Pass next_cursor from the previous page unchanged, or omit cursor to start from the first page',
  });
}

/**
 * A 64-bit hash of the query (two 32-bit multiply-xor lanes, mixed at the end), which tells one query's
 * cursors from another's: nothing is kept secret by it. 64 bits, because with 32 two different searches
 * can be found that share cursors. Hashed in JavaScript, which is cheaper than node:crypto on a cold call.
 */
function fingerprint(query: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b) ^ Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  return (a >>> 0).toString(36) + (b >>> 0).toString(36).padStart(7, '0');
}

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A page to fetch: its size, how many items came before it, and for keyset paging the key to start after. */
export interface PageWindow {
  limit: number;
  offset: number;
  after?: SortKey;
}

/** Resolve limit and offset from a request; pass `query` (e.g. JSON of the filters) to bind the cursor to it. */
export function pageWindow(request: PageRequest, query?: string): PageWindow {
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  return { limit, ...readCursor(request.cursor, query) };
}

/**
 * Build a page from the rows of one window and the total count. Pass `next` when you fetched limit + 1 rows:
 * whether more items follow decides the next cursor instead of the offset and the total, and for keyset
 * paging `after`, the sort key of the last item, goes into it (without one the next page is at an offset).
 */
export function toPage<T>(
  items: T[],
  total: number,
  window: PageWindow,
  query?: string,
  next?: { after: SortKey | undefined; more: boolean },
): Page<T> {
  const end = window.offset + items.length;
  if (next) {
    const cursor = next.more ? encodeCursor(end, query, next.after) : null;
    return { items, total, next_cursor: cursor };
  }
  return { items, total, next_cursor: end < total ? encodeCursor(end, query) : null };
}

/** Page through an in-memory array (small lists). */
export function paginate<T>(all: readonly T[], request: PageRequest, query?: string): Page<T> {
  const window = pageWindow(request, query);
  return toPage(all.slice(window.offset, window.offset + window.limit), all.length, window, query);
}
