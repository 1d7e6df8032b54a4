import {
  type CrashSafetyAdapter,
  callAllPages,
  callOk,
  checkCrashSafety,
  crashSafetyTitle,
} from '@shipyard/testing';
import { expect, it } from 'vitest';
import { bin } from './helpers.js';

// Needs the built bin (the package's test script builds first).

const adapter: CrashSafetyAdapter = {
  bin,
  args: (dataDir) => ['--data-dir', dataDir],
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

it(crashSafetyTitle(adapter), async () => {
  const rounds = await checkCrashSafety(adapter);
  expect(rounds.every((round) => round.inFlightAtKill > 0)).toBe(true);
}, 60_000);
