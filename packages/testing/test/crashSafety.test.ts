import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type CrashItem,
  type CrashSafetyAdapter,
  callOk,
  checkCrashSafety,
  crashSafetyTitle,
  type RecoveryState,
  recoveryProblems,
} from '../src/index.js';

// The fixture imports the built core: `pnpm --filter @shipyard/core build` first.
const JOURNAL = fileURLToPath(new URL('./fixtures/journal.mjs', import.meta.url));

const item = (n: number): CrashItem => {
  const word = `k${String(n).padStart(5, '0')}`;
  return { n, word, common: 'kestrel1', text: `Crash check ${word} kestrel1` };
};

/** Three writes sent, the first two acknowledged, all three stored and indexed. */
function consistent(): RecoveryState {
  const issued = [item(0), item(1), item(2)];
  return {
    issued,
    acknowledged: new Map([
      ['k00000', 'a'],
      ['k00001', 'b'],
    ]),
    stored: issued.map((it, i) => ({ id: 'abc'[i] as string, text: it.text })),
    readAlone: new Map(issued.map((it, i) => ['abc'[i] as string, it.text])),
    search: {
      hits: new Map(issued.map((it, i) => [it.word, ['abc'[i] as string]])),
      commonTotal: 3,
    },
  };
}

describe('recoveryProblems', () => {
  it('finds nothing wrong when the stored items match what was written', () => {
    expect(recoveryProblems(consistent())).toEqual([]);
  });

  it('accepts an unacknowledged write that is absent, and one that was stored whole', () => {
    const state = consistent();
    state.stored.pop();
    state.readAlone?.delete('c');
    state.search?.hits.set('k00002', []);
    if (state.search) state.search.commonTotal = 2;
    expect(recoveryProblems(state)).toEqual([]);
  });

  it('reports an acknowledged write the server does not hold', () => {
    const state = consistent();
    state.issued.push(item(3));
    state.acknowledged.set('k00003', 'd');
    expect(recoveryProblems(state)).toEqual(['acknowledged write k00003 (d) is missing after the restart']);
  });

  it('reports an acknowledged write stored with other content, as a half-written item', () => {
    const state = consistent();
    state.stored[1] = { id: 'b', text: 'Crash check k00001' };
    expect(recoveryProblems(state)).toEqual([
      'b reads "Crash check k00001", which no write sent: a half-written item',
      'acknowledged write k00001 (b) reads "Crash check k00001", not "Crash check k00001 kestrel1"',
      'b lists as "Crash check k00001" but reads alone as "Crash check k00001 kestrel1"',
      'search for k00001 finds [b] but the table holds []: the index disagrees with the table',
    ]);
  });

  it('reports an item stored twice, and an id listed twice', () => {
    const state = consistent();
    state.stored.push({ id: 'd', text: item(2).text }, { id: 'a', text: item(0).text });
    if (state.search) state.search.commonTotal = 5;
    expect(recoveryProblems(state)).toEqual([
      'id a is listed twice',
      'write k00000 is stored 2 times (a, a)',
      'write k00002 is stored 2 times (c, d)',
      'search for k00000 finds [a] but the table holds [a, a]: the index disagrees with the table',
      'search for k00002 finds [c] but the table holds [c, d]: the index disagrees with the table',
    ]);
  });

  it('reports an item listed but not readable alone, and one readable but not listed', () => {
    const state = consistent();
    state.readAlone?.set('b', undefined);
    state.readAlone?.set('z', 'Crash check k00009 kestrel1');
    expect(recoveryProblems(state)).toEqual([
      'b is listed but reading it alone finds nothing',
      'z reads alone but is not listed',
    ]);
  });

  it('reports a search index that misses an item, finds an absent one, or counts differently', () => {
    const state = consistent();
    state.search?.hits.set('k00000', []);
    state.search?.hits.set('k00005', ['f']);
    if (state.search) state.search.commonTotal = 4;
    expect(recoveryProblems(state)).toEqual([
      'search for k00000 finds [] but the table holds [a]: the index disagrees with the table',
      'search for k00005 finds [f] but the table holds []: the index disagrees with the table',
      'search for kestrel1 counts 4 items but 3 are stored',
    ]);
  });
});

/** The journal fixture in a mode: durable, lossy (answers before it writes) or torn (writes half). */
function journal(mode: string): CrashSafetyAdapter {
  return {
    bin: JOURNAL,
    args: (dataDir) => ['--data-dir', dataDir],
    env: { JOURNAL_MODE: mode },
    write: async (client, it) =>
      (await callOk<{ id: string }>(client, 'add_entry', { word: it.word, text: it.text })).id,
    list: async (client) =>
      (await callOk<{ items: { id: string; text: string }[] }>(client, 'list_entries')).items,
    search: {
      find: async (client, word) => (await callOk<{ ids: string[] }>(client, 'search_entries', { word })).ids,
      count: async (client, word) =>
        (await callOk<{ total: number }>(client, 'search_entries', { word })).total,
    },
  };
}

describe('checkCrashSafety', () => {
  it('passes a server that stores each write before it answers, killing it with writes in flight', async () => {
    const rounds = await checkCrashSafety(journal('durable'));
    expect(rounds).toHaveLength(3);
    for (const round of rounds) {
      expect(round.inFlightAtKill).toBeGreaterThan(0);
      expect(round.stored).toBeGreaterThanOrEqual(round.acknowledged);
    }
  }, 30_000);

  it('fails a server that answers before it stores, naming the lost writes', async () => {
    await expect(checkCrashSafety(journal('lossy'), { rounds: 1 })).rejects.toThrow(
      /After kill -9 round 1 of 1 .*\n- acknowledged write k\d{5} \(\d+-k\d{5}\) is missing after the restart/,
    );
  }, 30_000);

  it('fails a server that stores half an item', async () => {
    await expect(checkCrashSafety(journal('torn'), { rounds: 1 })).rejects.toThrow(
      /which no write sent: a half-written item/,
    );
  }, 30_000);

  it('names the skipped search check and its reason in the test title', () => {
    expect(crashSafetyTitle({ ...journal('durable'), search: { none: 'it keeps no index' } })).toBe(
      'keeps every acknowledged write whole across kill -9 and restart (search check skipped: it keeps no index)',
    );
  });
});
