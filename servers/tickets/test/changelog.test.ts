import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callOk, spawnServer, watchResourceUpdates } from '@shipyard/testing';
import { expect, it } from 'vitest';
import { bin } from './helpers.js';

// Needs the built bin: `pnpm --filter @shipyard/tickets build` (the package's test script builds first).

it('tells another process of deletes, comment edits and project changes, which leave no history row', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tickets-changelog-'));
  const [watcher, writer] = await Promise.all([
    spawnServer(bin, ['--data-dir', dir, '--user', 'watcher']),
    spawnServer(bin, ['--data-dir', dir, '--user', 'writer']),
  ]);
  try {
    await callOk(writer, 'create_project', { key: 'SHIP', name: 'Shipyard' });
    for (const title of ['Commented', 'Deleted'])
      await callOk(writer, 'create_ticket', { project: 'SHIP', title });
    await callOk(writer, 'add_ticket_comment', { key: 'SHIP-1', body: 'first' });
    const updates = watchResourceUpdates(watcher);
    for (const uri of ['tickets://SHIP-1', 'tickets://SHIP-2', 'tickets://projects'])
      await watcher.subscribeResource({ uri });
    // The watcher looks once a second; each step waits for its look.
    const after = async (change: () => Promise<unknown>, expected: string[]) => {
      updates.length = 0;
      await change();
      await expect.poll(() => [...new Set(updates)].sort(), { timeout: 10_000 }).toEqual(expected);
    };
    await after(
      () => callOk(writer, 'update_ticket_comment', { key: 'SHIP-1', id: 1, body: 'edited' }),
      ['tickets://SHIP-1'],
    );
    await after(
      () => callOk(writer, 'delete_ticket_comment', { key: 'SHIP-1', id: 1 }),
      ['tickets://SHIP-1'],
    );
    await after(
      () => callOk(writer, 'update_project', { key: 'SHIP', archived: true }),
      ['tickets://projects'],
    );
    await after(
      () => callOk(writer, 'delete_ticket', { key: 'SHIP-2' }),
      ['tickets://SHIP-2', 'tickets://projects'],
    );
  } finally {
    await Promise.all([watcher.close(), writer.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
});
