import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnServer } from './connect.js';
import { type CrashItem, type RecoveryState, recoveryProblems, type StoredItem } from './recovery.js';

/** How a server's tools write, list and search the items of a crash-safety run. */
export interface CrashSafetyAdapter {
  /** The built bin (`node <bin>`). */
  bin: string;
  /** Its arguments for a data dir, e.g. `['--data-dir', dir]`. */
  args(dataDir: string): string[];
  env?: Record<string, string>;
  /** Once, before the first round: e.g. create the project items go into. */
  setup?(client: Client): Promise<void>;
  /** Store one item whose content is `item.text`; resolves with its id once the server acknowledged it. */
  write(client: Client, item: CrashItem): Promise<string>;
  /** Every item of the run the server holds, with its content as one string (`text` of a whole item). */
  list(client: Client): Promise<StoredItem[]>;
  /** One item read on its own (another read path than `list`); undefined when not found. */
  read?(client: Client, id: string): Promise<string | undefined>;
  /** The server's search, or why it has none to check. */
  search:
    | {
        find(client: Client, word: string): Promise<string[]>;
        count(client: Client, word: string): Promise<number>;
      }
    | { none: string };
  /** Processes writing to the one data dir at once (default 2). */
  processes?: number;
}

export interface CrashSafetyOptions {
  /** Kill rounds (default 3). */
  rounds?: number;
  /** Writes in flight per client (default 4). */
  lanes?: number;
  /** Acknowledgements each round waits for before the kill, per round (default 20, 45, 70). */
  killAfter?: number[];
}

export interface CrashRound {
  acknowledged: number;
  /** Writes sent but not answered when the kill went out. */
  inFlightAtKill: number;
  /** Of those, answered anyway (the answer was already on its way). */
  answeredAfterKill: number;
  /** Items the restarted server listed. */
  stored: number;
}

/** The test name for an adapter's crash-safety test: says when the search check is skipped and why. */
export function crashSafetyTitle(adapter: CrashSafetyAdapter): string {
  const what = 'keeps every acknowledged write whole across kill -9 and restart';
  return 'none' in adapter.search
    ? `${what} (search check skipped: ${adapter.search.none})`
    : `${what}, and its search index agrees with the table`;
}

/**
 * Run the server's bin on a fresh data dir, write through its tools from `processes` processes with several
 * calls in flight, SIGKILL every process mid-burst, restart on the same dir and check with
 * `recoveryProblems`; `rounds` times. Throws one error listing the problems of the first bad round.
 */
export async function checkCrashSafety(
  adapter: CrashSafetyAdapter,
  options: CrashSafetyOptions = {},
): Promise<CrashRound[]> {
  const rounds = options.rounds ?? 3;
  const lanes = options.lanes ?? 4;
  const killAfter = options.killAfter ?? [20, 45, 70];
  const processes = adapter.processes ?? 2;
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-crash-'));
  const stderr: string[] = [];
  const start = () => spawnServer(adapter.bin, adapter.args(dataDir), { env: adapter.env ?? {}, stderr });
  const common = `kestrel${Math.floor(Math.random() * 1e6)}`;
  const issued: CrashItem[] = [];
  const acknowledged = new Map<string, string>();
  const report: CrashRound[] = [];
  const open: Client[] = [];
  const startAll = async (count = processes) => {
    const clients = await Promise.all(Array.from({ length: count }, start));
    open.push(...clients);
    return clients;
  };
  try {
    let writers = await startAll();
    await adapter.setup?.(writers[0] as Client);
    for (let round = 0; round < rounds; round++) {
      const before = issued.length;
      const burst = await writeUntilKilled(writers, {
        lanes,
        killAfter: killAfter[round % killAfter.length] ?? 20,
        next: () => {
          const n = issued.length;
          const word = `k${String(n).padStart(5, '0')}`;
          const item = { n, word, common, text: `Crash check ${word} ${common}` };
          issued.push(item);
          return item;
        },
        write: adapter.write,
        acknowledged,
      });
      await Promise.all(open.splice(0).map((client) => client.close().catch(() => undefined)));

      // The restarted processes are checked through the first, then write the next round.
      writers = await startAll(round + 1 < rounds ? processes : 1);
      const state = await observe(
        adapter,
        writers[0] as Client,
        issued,
        acknowledged,
        issued.slice(before),
        common,
      );
      const problems = recoveryProblems(state);
      if (problems.length > 0) {
        throw new Error(
          `After kill -9 round ${round + 1} of ${rounds} (${burst.acknowledged} acknowledged, ` +
            `${burst.inFlightAtKill} in flight):\n- ${problems.join('\n- ')}`,
        );
      }
      report.push({ ...burst, stored: state.stored.length });
    }
    return report;
  } catch (error) {
    const tail = stderr.join('').slice(-3_000);
    throw new Error(`${(error as Error).message}${tail ? `\nserver stderr:\n${tail}` : ''}`, {
      cause: error,
    });
  } finally {
    await Promise.all(open.map((client) => client.close().catch(() => undefined)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface BurstOptions {
  lanes: number;
  killAfter: number;
  next(): CrashItem;
  write: CrashSafetyAdapter['write'];
  acknowledged: Map<string, string>;
}

/**
 * Keep `lanes` writes in flight on every client; once `killAfter` writes were acknowledged and some are in
 * flight, SIGKILL every server process. Writes refused before the kill fail the run.
 */
async function writeUntilKilled(clients: Client[], options: BurstOptions) {
  let acknowledged = 0;
  let inFlight = 0;
  let killed = false;
  let inFlightAtKill = 0;
  let answeredAfterKill = 0;
  const kill = () => {
    killed = true;
    inFlightAtKill = inFlight;
    for (const client of clients) {
      const pid = (client.transport as StdioClientTransport | undefined)?.pid;
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone: its writes failed before the kill, which fails the run.
      }
    }
  };
  const lane = async (client: Client) => {
    while (!killed) {
      const item = options.next();
      inFlight++;
      try {
        const id = await options.write(client, item);
        options.acknowledged.set(item.word, id);
        acknowledged++;
        if (killed) answeredAfterKill++;
      } catch (error) {
        // After the kill a write may have been stored or not: the check accepts either, whole.
        if (!killed)
          throw new Error(`write ${item.word} failed before the kill: ${(error as Error).message}`);
        return;
      } finally {
        inFlight--;
      }
      if (!killed && acknowledged >= options.killAfter && inFlight > 0) kill();
    }
  };
  const lanes = clients.flatMap((client) => Array.from({ length: options.lanes }, () => lane(client)));
  try {
    await Promise.all(lanes);
  } finally {
    if (!killed) kill();
    await Promise.allSettled(lanes);
  }
  return { acknowledged, inFlightAtKill, answeredAfterKill };
}

/** What the restarted server holds: the list, this round's items read alone, and its searches (all at once). */
async function observe(
  adapter: CrashSafetyAdapter,
  client: Client,
  issued: CrashItem[],
  acknowledged: Map<string, string>,
  thisRound: CrashItem[],
  common: string,
): Promise<RecoveryState> {
  const stored = await adapter.list(client);
  const state: RecoveryState = { issued, acknowledged, stored };
  if (adapter.read) {
    const words = new Set(thisRound.map((item) => item.word));
    const byText = new Map(issued.map((item) => [item.text, item.word]));
    const ids = new Set(thisRound.flatMap((item) => acknowledged.get(item.word) ?? []));
    for (const item of stored) if (words.has(byText.get(item.text) ?? '')) ids.add(item.id);
    const read = adapter.read;
    state.readAlone = new Map(
      await Promise.all([...ids].map(async (id) => [id, await read(client, id)] as const)),
    );
  }
  const search = adapter.search;
  if (!('none' in search)) {
    const hits = await Promise.all(
      thisRound.map(async (item) => [item.word, await search.find(client, item.word)] as const),
    );
    state.search = { hits: new Map(hits), commonTotal: await search.count(client, common) };
  }
  return state;
}
