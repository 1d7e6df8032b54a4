import {
  type CrashSafetyAdapter,
  callAllPages,
  callOk,
  checkCrashSafety,
  crashSafetyTitle,
} from '@shipyard/testing';
import { beforeAll, expect, it } from 'vitest';
import { bin, databaseUrlFor, engine, onPostgres } from './helpers.js';

// Needs the built bin (the package's test script builds first).

// On PostgreSQL every round restarts on one database, made before the run.
let databaseUrl = '';
beforeAll(async () => {
  if (onPostgres) databaseUrl = await databaseUrlFor();
});

interface Found {
  key: string;
  title: string;
  description?: string | null;
}

/** A ticket whose title and description both hold the item's text reads as that text. */
const textOf = (ticket: Found) =>
  ticket.title === ticket.description ? ticket.title : `${ticket.title} | ${ticket.description}`;

const adapter: CrashSafetyAdapter = {
  bin,
  args: (dataDir) => [
    ...(onPostgres ? ['--database-url', databaseUrl] : ['--data-dir', dataDir]),
    '--user',
    'ana',
  ],
  setup: async (client) => {
    await callOk(client, 'create_project', { key: 'SHIP', name: 'Shipyard' });
  },
  write: async (client, item) =>
    (
      await callOk<{ key: string }>(client, 'create_ticket', {
        project: 'SHIP',
        title: item.text,
        description: item.text,
      })
    ).key,
  list: async (client) =>
    (
      await callAllPages<Found>(client, 'search_tickets', {
        project: 'SHIP',
        fields: ['description'],
        limit: 100,
      })
    ).map((ticket) => ({ id: ticket.key, text: textOf(ticket) })),
  read: async (client, key) => {
    const result = await client.callTool({ name: 'get_ticket', arguments: { key } });
    return result.isError ? undefined : textOf(result.structuredContent as unknown as Found);
  },
  search: {
    find: async (client, word) =>
      (await callAllPages<Found>(client, 'search_tickets', { query: word })).map((ticket) => ticket.key),
    count: async (client, word) =>
      (await callOk<{ total: number }>(client, 'search_tickets', { query: word, limit: 1 })).total,
  },
};

it(`${crashSafetyTitle(adapter)} (${engine})`, async () => {
  const rounds = await checkCrashSafety(adapter);
  expect(rounds.every((round) => round.inFlightAtKill > 0)).toBe(true);
}, 60_000);
