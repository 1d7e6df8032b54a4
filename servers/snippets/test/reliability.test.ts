import {
  type CrashSafetyAdapter,
  callAllPages,
  callOk,
  checkCrashSafety,
  crashSafetyTitle,
} from '@shipyard/testing';
import { beforeAll, expect, it } from 'vitest';
import { bin, databaseUrlFor, engine, onPostgres } from './helpers.js';

// Needs the built bin (the package's test script builds first). On PostgreSQL the processes share one
// database (the data dir is unused): what is killed is the server, between its commit and its answer.
let databaseUrl = '';
beforeAll(async () => {
  if (onPostgres) databaseUrl = await databaseUrlFor('crash-safety');
});

interface Found {
  id: string;
  title: string;
  description: string;
  /** The first lines of the code (a summary) or the whole code (one snippet). */
  code: string;
}

/** A snippet whose title, description and code all hold the item's text reads as that text. */
const textOf = (snippet: Found) =>
  snippet.description === snippet.title && snippet.code === `echo ${snippet.title}`
    ? snippet.title
    : `${snippet.title} | ${snippet.description} | ${snippet.code}`;

const adapter: CrashSafetyAdapter = {
  bin,
  args: (dataDir) => (onPostgres ? ['--database-url', databaseUrl] : ['--data-dir', dataDir]),
  write: async (client, item) =>
    (
      await callOk<{ snippet: { id: string } }>(client, 'save_snippet', {
        title: item.text,
        description: item.text,
        code: `echo ${item.text}`,
        language: 'sh',
      })
    ).snippet.id,
  list: async (client) =>
    (
      await callAllPages<Found & { head: string }>(client, 'search_snippets', { sort: 'recent', limit: 100 })
    ).map((snippet) => ({ id: snippet.id, text: textOf({ ...snippet, code: snippet.head }) })),
  read: async (client, id) => {
    const result = await client.callTool({ name: 'get_snippet', arguments: { id } });
    return result.isError ? undefined : textOf((result.structuredContent as { snippet: Found }).snippet);
  },
  search: {
    find: async (client, word) =>
      (await callAllPages<Found>(client, 'search_snippets', { query: word })).map((snippet) => snippet.id),
    count: async (client, word) =>
      (await callOk<{ total: number }>(client, 'search_snippets', { query: word, limit: 1 })).total,
  },
};

it(`${crashSafetyTitle(adapter)} (${engine})`, async () => {
  const rounds = await checkCrashSafety(adapter);
  expect(rounds.every((round) => round.inFlightAtKill > 0)).toBe(true);
}, 60_000);
