// The measurements. Each compares the server with a reference measured in the same run, interleaved, so that
// whatever else the machine does lands on both sides alike.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Child, type Message } from './child.ts';
import type { Scenario, SeedContext, ToolCall } from './scenario.ts';
import { type Latency, latency, median } from './stats.ts';

/** How to start one side: the script node runs and its arguments for a data dir. */
export interface Side {
  script: string;
  args(dataDir: string): string[];
}

type Log = (line: string) => void;

const elapsedMs = (from: bigint, to: bigint): number => Number(to - from) / 1e6;

async function coldStartOnce(side: Side, dataDir: string): Promise<number> {
  const child = new Child(side.script, side.args(dataDir));
  try {
    await child.initialize();
    return elapsedMs(child.spawnedAt, child.lastResponseAt);
  } finally {
    await child.stop();
  }
}

export interface ColdStart {
  /** Medians in ms. */
  fresh: number;
  existing: number;
  first: number;
  baseline: number;
}

/**
 * Spawn to parsed initialize result. Each round: server on a fresh data dir, baseline, server on a reused
 * data dir, server without its V8 code cache (`dropCodeCache`: the first start after an install).
 * The warm-up rounds are dropped.
 */
export async function coldStart(o: {
  server: Side;
  baseline: Side;
  dropCodeCache(): void;
  runs: number;
  warmup: number;
  tmp: string;
  log: Log;
}): Promise<ColdStart> {
  const existingDir = mkdtempSync(join(o.tmp, 'existing-'));
  const samples = {
    fresh: [] as number[],
    existing: [] as number[],
    first: [] as number[],
    baseline: [] as number[],
  };
  for (let round = 0; round < o.warmup + o.runs; round++) {
    const fresh = await coldStartOnce(o.server, mkdtempSync(join(o.tmp, 'fresh-')));
    const baseline = await coldStartOnce(o.baseline, o.tmp);
    const existing = await coldStartOnce(o.server, existingDir);
    o.dropCodeCache();
    const first = await coldStartOnce(o.server, mkdtempSync(join(o.tmp, 'fresh-')));
    o.log(
      `  cold start ${round < o.warmup ? 'warm-up' : 'round'} ${round + 1}/${o.warmup + o.runs}: ` +
        `server ${fresh.toFixed(1)} ms, baseline ${baseline.toFixed(1)} ms`,
    );
    if (round < o.warmup) continue;
    samples.fresh.push(fresh);
    samples.baseline.push(baseline);
    samples.existing.push(existing);
    samples.first.push(first);
  }
  const result = {
    fresh: median(samples.fresh),
    existing: median(samples.existing),
    first: median(samples.first),
    baseline: median(samples.baseline),
  };
  o.log(
    `  cold start medians: server ${result.fresh.toFixed(1)} ms (existing dir ${result.existing.toFixed(1)}, ` +
      `first start ${result.first.toFixed(1)}), baseline ${result.baseline.toFixed(1)} ms`,
  );
  return result;
}

/** tools/list, following nextCursor. */
async function listTools(child: Child): Promise<Message[]> {
  const tools: Message[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const response = await child.request('tools/list', cursor ? { cursor } : {});
    if (response.error) throw new Error(`tools/list failed: ${JSON.stringify(response.error)}`);
    tools.push(...response.result.tools);
    cursor = response.result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

export interface Idle {
  /** VmRSS in KiB 500 ms after initialize, before any other request. */
  rssKiB: { server: number | null; baseline: number | null };
  /** JSON.stringify of the whole tools/list result, in characters; tokens are ceil(chars / 4). */
  toolsListChars: { server: number; baseline: number };
  tools: number;
}

/** Idle memory and context footprint: one process per side, on an empty data dir. */
export async function idle(o: { server: Side; baseline: Side; tmp: string }): Promise<Idle> {
  const server = new Child(o.server.script, o.server.args(mkdtempSync(join(o.tmp, 'idle-'))));
  const baseline = new Child(o.baseline.script, o.baseline.args(o.tmp));
  try {
    for (const child of [server, baseline]) {
      await child.initialize();
      child.notify('notifications/initialized');
    }
    await sleep(500);
    const rssKiB = { server: server.rssKiB(), baseline: baseline.rssKiB() };
    const serverTools = await listTools(server);
    const baselineTools = await listTools(baseline);
    return {
      rssKiB,
      toolsListChars: {
        server: JSON.stringify({ tools: serverTools }).length,
        baseline: JSON.stringify({ tools: baselineTools }).length,
      },
      tools: serverTools.length,
    };
  } finally {
    await Promise.all([server.stop(), baseline.stop()]);
  }
}

/** The total size of the files in a folder (not its subfolders). */
function dirBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(join(dir, entry.name)).size, 0);
}

/** One tools/call over stdio, in ms from writing the request to parsing the answer; a failed call throws. */
async function timedCall(child: Child, call: ToolCall): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await child.request('tools/call', call);
  const ms = elapsedMs(start, child.lastResponseAt);
  if (response.error || response.result?.isError) {
    throw new Error(`tools/call ${call.name} failed: ${JSON.stringify(response.error ?? response.result)}`);
  }
  return ms;
}

export interface ScenarioResult {
  name: string;
  /** Bytes of the files in a seeded scenario's data dir after its calls (the database and its WAL). */
  dataBytes?: number;
  reference: string;
  server: Latency;
  against: Latency;
  target: number | undefined;
}

const ECHO: ToolCall = { name: 'echo', arguments: { text: 'hello' } };

/**
 * One scenario: seed its data dir, start the server on it, make the setup calls, then alternate a timed
 * server call with a timed reference (the baseline's echo over stdio, or the scenario's in-process one).
 */
export async function scenario(o: {
  scenario: Scenario;
  server: Side;
  baseline: Side;
  calls: number;
  warmup: number;
  smoke: boolean;
  root: string;
  tmp: string;
  log: Log;
}): Promise<ScenarioResult> {
  const s = o.scenario;
  const context: SeedContext = {
    dataDir: mkdtempSync(join(o.tmp, 'scenario-')),
    root: o.root,
    smoke: o.smoke,
  };
  if (s.seed) {
    const started = Date.now();
    await s.seed(context);
    o.log(`  ${s.name}: seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const server = new Child(o.server.script, o.server.args(context.dataDir));
  const baseline = s.reference ? null : new Child(o.baseline.script, o.baseline.args(o.tmp));
  const reference = s.reference?.open(context);
  try {
    for (const child of [server, baseline]) {
      if (!child) continue;
      await child.initialize();
      child.notify('notifications/initialized');
    }
    for (const call of s.setup ?? []) await timedCall(server, call);
    const against = async (call: ToolCall): Promise<number> => {
      if (baseline) return timedCall(baseline, ECHO);
      const start = process.hrtime.bigint();
      reference?.run(call);
      return elapsedMs(start, process.hrtime.bigint());
    };
    const runs = o.smoke ? Math.min(o.calls, s.runs ?? o.calls) : (s.runs ?? o.calls);
    const samples = { server: [] as number[], against: [] as number[] };
    for (let i = 0; i < o.warmup + runs; i++) {
      const call = s.calls[i % s.calls.length] as ToolCall;
      const a = await timedCall(server, call);
      const b = await against(call);
      if (i < o.warmup) continue;
      samples.server.push(a);
      samples.against.push(b);
    }
    const result: ScenarioResult = {
      name: s.name,
      ...(s.seed ? { dataBytes: dirBytes(context.dataDir) } : {}),
      reference: s.reference?.label ?? 'baseline `echo`',
      server: latency(samples.server),
      against: latency(samples.against),
      target: s.target,
    };
    o.log(
      `  ${s.name}: p50 ${result.server.p50.toFixed(3)} ms, ${result.reference} ${result.against.p50.toFixed(3)} ms`,
    );
    return result;
  } finally {
    reference?.close();
    await Promise.all([server.stop(), baseline?.stop()]);
    rmSync(context.dataDir, { recursive: true, force: true });
  }
}
