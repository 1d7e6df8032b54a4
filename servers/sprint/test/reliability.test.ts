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

const adapter: CrashSafetyAdapter = {
  bin,
  args: (dataDir) => (onPostgres ? ['--database-url', databaseUrl] : ['--data-dir', dataDir]),
  write: async (client, item) =>
    (await callOk<{ key: string }>(client, 'create_story', { title: item.text })).key,
  list: async (client) =>
    (await callAllPages<{ key: string; title: string }>(client, 'get_backlog', { limit: 100 })).map(
      (story) => ({
        id: story.key,
        text: story.title,
      }),
    ),
  search: { none: 'sprint has no search tool' },
};

it(`${crashSafetyTitle(adapter)} (${engine})`, async () => {
  const rounds = await checkCrashSafety(adapter);
  expect(rounds.every((round) => round.inFlightAtKill > 0)).toBe(true);
}, 60_000);
