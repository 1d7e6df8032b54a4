import {
  type CrashSafetyAdapter,
  callAllPages,
  callOk,
  checkCrashSafety,
  crashSafetyTitle,
  readText,
} from '@shipyard/testing';
import { expect, it } from 'vitest';
import { bin } from './helpers.js';

// Needs the built bin (the package's test script builds first).

const adapter: CrashSafetyAdapter = {
  bin,
  args: (dataDir) => ['--data-dir', dataDir],
  write: async (client, item) =>
    (await callOk<{ note: { slug: string } }>(client, 'save_note', { title: item.text, body: item.text }))
      .note.slug,
  list: async (client) =>
    (await callAllPages<{ slug: string; title: string }>(client, 'list_notes', { limit: 100 })).map(
      (note) => ({
        id: note.slug,
        text: note.title,
      }),
    ),
  read: async (client, slug) => {
    const markdown = await readText(client, `notes://${slug}`).catch(() => undefined);
    if (markdown === undefined) return undefined;
    // The note's markdown starts with its title as a heading and ends with its body.
    const title = /^# (.*)$/m.exec(markdown)?.[1] ?? '';
    return markdown.endsWith(`\n\n${title}\n`) ? title : markdown;
  },
  search: { none: 'example keeps no search index: list_notes matches words with LIKE on the table' },
};

it(crashSafetyTitle(adapter), async () => {
  const rounds = await checkCrashSafety(adapter);
  expect(rounds.every((round) => round.inFlightAtKill > 0)).toBe(true);
}, 60_000);
