import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMIT,
  decodeCursor,
  encodeCursor,
  InvalidInput,
  MAX_LIMIT,
  pageWindow,
  paginate,
  toPage,
} from '../src/index.js';
import { createSample } from './fixtures/sample.js';
import { connect, expectToolError, expectToolOk, type Harness } from './helpers.js';

const items = Array.from({ length: 257 }, (_, i) => i);

function expectInvalidInput(fn: () => unknown, message: RegExp): InvalidInput {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InvalidInput);
  const error = caught as InvalidInput;
  expect(error.code).toBe('invalid_input');
  expect(error.message).toMatch(message);
  expect(error.hint).toEqual(expect.any(String));
  return error;
}

describe('constants', () => {
  it('defaults to 20 per page, at most 100', () => {
    expect(DEFAULT_LIMIT).toBe(20);
    expect(MAX_LIMIT).toBe(100);
  });
});

describe('paginate', () => {
  it('returns the first 20 items with a cursor and the total by default', () => {
    const page = paginate(items, {});
    expect(page.items).toEqual(items.slice(0, 20));
    expect(page.total).toBe(257);
    expect(page.next_cursor).toEqual(expect.any(String));
  });

  it('clamps the limit to 1..100', () => {
    expect(paginate(items, { limit: 500 }).items).toHaveLength(100);
    expect(paginate(items, { limit: 0 }).items).toHaveLength(1);
    expect(paginate(items, { limit: 7 }).items).toHaveLength(7);
  });

  it('walks every item exactly once, ending with next_cursor null', () => {
    for (const limit of [1, 7, 20, 100, undefined]) {
      const seen: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const page = paginate(items, { limit, cursor });
        pages += 1;
        expect(page.total).toBe(257);
        seen.push(...page.items);
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
        expect(pages).toBeLessThan(300);
      }
      expect(seen).toEqual(items);
      expect(pages).toBe(Math.ceil(257 / (limit ?? 20)));
    }
  });

  it('gives next_cursor null when everything fits, and for an empty list', () => {
    expect(paginate([1, 2, 3], {})).toEqual({ items: [1, 2, 3], total: 3, next_cursor: null });
    expect(paginate(items.slice(0, 20), {})).toMatchObject({ next_cursor: null, total: 20 });
    expect(paginate([], {})).toEqual({ items: [], total: 0, next_cursor: null });
  });

  it('binds a cursor to its query', () => {
    const first = paginate(items, {}, 'q=a');
    const second = paginate(items, { cursor: first.next_cursor ?? undefined }, 'q=a');
    expect(second.items).toEqual(items.slice(20, 40));
    expectInvalidInput(
      () => paginate(items, { cursor: first.next_cursor ?? undefined }, 'q=b'),
      /different query/,
    );
  });

  it('rejects a garbage cursor with InvalidInput', () => {
    for (const cursor of [
      'garbage!!',
      'bm90IGpzb24',
      encodeURIComponent('{"o":-1}'),
      'eyJvIjotMX0',
      'eyJvIjoiMSJ9',
      'bnVsbA',
    ]) {
      // 'eyJvIjotMX0' = {"o":-1}, 'eyJvIjoiMSJ9' = {"o":"1"}, 'bnVsbA' = null
      expectInvalidInput(() => paginate(items, { cursor }), /cursor/);
    }
  });
});

describe('encodeCursor / decodeCursor', () => {
  it('round-trips an offset, with and without a query', () => {
    expect(decodeCursor(encodeCursor(40))).toBe(40);
    expect(decodeCursor(encodeCursor(40, 'q'), 'q')).toBe(40);
    expect(decodeCursor(encodeCursor(0, 'q'), 'q')).toBe(0);
  });

  it('treats a missing or empty cursor as the start', () => {
    expect(decodeCursor(undefined)).toBe(0);
    expect(decodeCursor('')).toBe(0);
  });

  it('is opaque: no offset in plain sight', () => {
    const cursor = encodeCursor(12345, 'status=open');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('12345');
  });

  it('rejects a cursor from another query', () => {
    expectInvalidInput(
      () => decodeCursor(encodeCursor(20, 'status=open'), 'status=closed'),
      /different query/,
    );
  });

  it('rejects garbage', () => {
    expectInvalidInput(() => decodeCursor('%%%'), /not a cursor this server issued/);
    expectInvalidInput(() => decodeCursor(Buffer.from('{"o":1.5}').toString('base64url')), /not a cursor/);
    expectInvalidInput(() => decodeCursor(Buffer.from('[]').toString('base64url')), /not a cursor/);
  });
});

describe('keyset cursors', () => {
  it('carry the sort key of the last item, and toPage issues one only when more items follow', () => {
    const window = pageWindow({ limit: 2 }, 'q');
    const page = toPage(['a', 'b'], 10, window, 'q', { after: ['2026-01-01', 7], more: true });
    expect(page.total).toBe(10);
    expect(pageWindow({ limit: 2, cursor: page.next_cursor ?? '' }, 'q')).toEqual({
      limit: 2,
      offset: 2,
      after: ['2026-01-01', 7],
    });
    // The total is not what decides: no more items, no cursor, whatever the total says.
    expect(toPage(['c'], 10, window, 'q', { after: ['x', 1], more: false }).next_cursor).toBeNull();
    // More items but no key (an order with no stable key): the next page is at an offset.
    const byOffset = toPage(['a', 'b'], 2, window, 'q', { after: undefined, more: true }).next_cursor;
    expect(pageWindow({ limit: 2, cursor: byOffset ?? '' }, 'q')).toEqual({ limit: 2, offset: 2 });
  });

  it('rejects a cursor whose sort key is not a short list of strings and numbers', () => {
    for (const k of ['x', [{}], [null], Array.from({ length: 9 }, () => 1)]) {
      const cursor = Buffer.from(JSON.stringify({ o: 2, k })).toString('base64url');
      expectInvalidInput(() => pageWindow({ cursor }), /not a cursor/);
    }
  });
});

describe('pageWindow / toPage', () => {
  it('resolves limit and offset from a request', () => {
    expect(pageWindow({})).toEqual({ limit: 20, offset: 0 });
    expect(pageWindow({ limit: 1000 })).toEqual({ limit: 100, offset: 0 });
    expect(pageWindow({ limit: 5, cursor: encodeCursor(35, 'q') }, 'q')).toEqual({ limit: 5, offset: 35 });
    expectInvalidInput(() => pageWindow({ cursor: encodeCursor(35, 'q') }, 'other'), /different query/);
    // Two queries whose 32-bit FNV-1a hashes are equal (the fingerprint before): still told apart.
    expectInvalidInput(
      () => pageWindow({ cursor: encodeCursor(20, 'query 5vl8') }, 'query mpd6'),
      /different query/,
    );
  });

  it('builds a page from one window of rows and the total', () => {
    const window = pageWindow({ limit: 10 }, 'q');
    const page = toPage(items.slice(0, 10), 257, window, 'q');
    expect(page.items).toEqual(items.slice(0, 10));
    expect(page.total).toBe(257);
    expect(decodeCursor(page.next_cursor ?? undefined, 'q')).toBe(10);
    const last = toPage(items.slice(250), 257, { limit: 10, offset: 250 }, 'q');
    expect(last.next_cursor).toBeNull();
  });
});

describe('through a tool with paginationInput / paginationOutput', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('pages over the client, and rejects limit 0 and 101 with a plain message', async () => {
    harness = await connect(createSample());
    const { client } = harness;
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'list_tags')?.inputSchema.properties;
    expect(schema?.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });

    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = expectToolOk<{ items: string[]; next_cursor: string | null; total: number }>(
        await client.callTool({ name: 'list_tags', arguments: { limit: 40, ...(cursor ? { cursor } : {}) } }),
      );
      expect(page.total).toBe(151);
      seen.push(...page.items);
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(seen).toHaveLength(151);
    expect(new Set(seen).size).toBe(151);

    const first = expectToolOk<{ items: string[]; next_cursor: string | null }>(
      await client.callTool({ name: 'list_tags', arguments: {} }),
    );
    expect(first.items).toHaveLength(20);

    const zero = expectToolError(
      await client.callTool({ name: 'list_tags', arguments: { limit: 0 } }),
      'invalid_input',
    );
    expect(zero.message).toContain('`limit` must be at least 1');
    const big = expectToolError(
      await client.callTool({ name: 'list_tags', arguments: { limit: 101 } }),
      'invalid_input',
    );
    expect(big.message).toContain('`limit` must be at most 100');

    const bad = expectToolError(
      await client.callTool({ name: 'list_tags', arguments: { cursor: 'garbage' } }),
      'invalid_input',
    );
    expect(bad.message).toContain('cursor');
    const other = expectToolError(
      await client.callTool({ name: 'list_tags', arguments: { prefix: 'tag-1', cursor: first.next_cursor } }),
      'invalid_input',
    );
    expect(other.message).toContain('different query');
  });
});
