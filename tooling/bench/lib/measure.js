// The measurements. Each compares a server bin with the baseline in the same run, interleaved, so that
// whatever else the machine is doing lands on both sides alike.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Child, childEnv } from './child.js';
import { latencySummary, median, summary } from './stats.js';

/** @typedef {{script: string, args: (dataDir: string) => string[], prepare?: () => void}} Side */

const NS_PER_MS = 1_000_000;

/** @param {bigint} from @param {bigint} to */
const elapsedMs = (from, to) => Number(to - from) / NS_PER_MS;

/**
 * One cold start: spawn, write initialize at once, stop the clock when the response line is parsed.
 * @param {Side} side
 * @param {string} dataDir
 * @returns {Promise<number>} milliseconds
 */
export async function coldStartOnce(side, dataDir) {
  side.prepare?.();
  const child = new Child(side.script, side.args(dataDir), childEnv());
  try {
    const response = await child.initialize();
    const ms = elapsedMs(child.spawnedAt, child.lastResponseAt);
    if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
    return ms;
  } finally {
    await child.stop();
  }
}

/**
 * Cold start, alternating server (fresh data dir), baseline, server (existing data dir) and `firstStart` (the
 * server as at its first start after an install: `prepare` removes its code cache; fresh data dir) each round. The first `warmup` rounds are discarded (page cache, the existing data dir's first
 * migration, the code cache's first save).
 * @param {{server: Side, baseline: Side, firstStart: Side, runs: number, warmup: number, tmp: string,
 *   log: (s: string) => void}} o
 */
export async function coldStart({ server, baseline, firstStart, runs, warmup, tmp, log }) {
  const existingDir = mkdtempSync(join(tmp, 'existing-'));
  /** @type {{server: number[], baseline: number[], serverExisting: number[], serverFirst: number[]}} */
  const samples = { server: [], baseline: [], serverExisting: [], serverFirst: [] };
  for (let round = 0; round < warmup + runs; round++) {
    const a = await coldStartOnce(server, mkdtempSync(join(tmp, 'fresh-')));
    const b = await coldStartOnce(baseline, tmp);
    const c = await coldStartOnce(server, existingDir);
    const d = await coldStartOnce(firstStart, mkdtempSync(join(tmp, 'fresh-')));
    const kept = round >= warmup;
    if (kept) {
      samples.server.push(a);
      samples.baseline.push(b);
      samples.serverExisting.push(c);
      samples.serverFirst.push(d);
    }
    log(
      `  cold start ${kept ? `run ${round - warmup + 1}/${runs}` : `warm-up ${round + 1}/${warmup}`}: ` +
        `server ${a.toFixed(1)} ms, baseline ${b.toFixed(1)} ms, server (existing dir) ${c.toFixed(1)} ms, ` +
        `server (first start) ${d.toFixed(1)} ms`,
    );
  }
  const paired = (/** @type {number[]} */ list) => median(list.map((ms, i) => ms / samples.baseline[i]));
  return {
    samples,
    server: summary(samples.server),
    baseline: summary(samples.baseline),
    serverExisting: summary(samples.serverExisting),
    serverFirst: summary(samples.serverFirst),
    // Each server start divided by the baseline start of the same round, which ran right next to it: less
    // affected by load that changes during the run than the ratio of the two medians.
    pairedRatio: {
      server: paired(samples.server),
      serverExisting: paired(samples.serverExisting),
      serverFirst: paired(samples.serverFirst),
    },
  };
}

/**
 * tools/list, following nextCursor; returns every tool and the number of pages.
 * @param {Child} child
 */
export async function listTools(child) {
  /** @type {any[]} */
  const tools = [];
  let cursor;
  let pages = 0;
  do {
    const response = await child.request('tools/list', cursor ? { cursor } : {});
    if (response.error) throw new Error(`tools/list failed: ${JSON.stringify(response.error)}`);
    tools.push(...response.result.tools);
    cursor = response.result.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  return { tools, pages };
}

/**
 * Characters of JSON.stringify of the tools/list result and of each tool; tokens approximated as chars/4.
 * @param {any[]} tools
 * @param {number} pages
 */
export function footprint(tools, pages) {
  const totalChars = JSON.stringify({ tools }).length;
  return {
    pages,
    totalChars,
    totalTokens: Math.ceil(totalChars / 4),
    tools: tools.map((tool) => {
      const chars = JSON.stringify(tool).length;
      return {
        name: tool.name,
        chars,
        tokens: Math.ceil(chars / 4),
        descriptionChars: (tool.description ?? '').length,
        readOnlyHint: tool.annotations?.readOnlyHint === true,
      };
    }),
  };
}

/**
 * The cheap tool for the latency run: package.json "shipyard.bench" {tool, arguments} if given, else the
 * first tool with annotations.readOnlyHint true, called with {}.
 * @param {any[]} tools
 * @param {{tool?: string, arguments?: Record<string, unknown>} | undefined} configured
 * @returns {{name: string, arguments: Record<string, unknown>, source: string} | null}  null: no cheap tool
 */
export function pickTool(tools, configured) {
  if (configured?.tool) {
    if (!tools.some((t) => t.name === configured.tool)) {
      throw new Error(`package.json shipyard.bench.tool "${configured.tool}" is not in tools/list`);
    }
    return {
      name: configured.tool,
      arguments: configured.arguments ?? {},
      source: 'package.json shipyard.bench',
    };
  }
  const readOnly = tools.find((t) => t.annotations?.readOnlyHint === true);
  if (!readOnly) return null;
  return { name: readOnly.name, arguments: {}, source: 'first tool with readOnlyHint true' };
}

/**
 * @param {Child} child
 * @param {{name: string, arguments: Record<string, unknown>}} call
 * @returns {Promise<number>} milliseconds from write to parsed response
 */
async function timedCall(child, call) {
  const start = process.hrtime.bigint();
  const response = await child.request('tools/call', call);
  const ms = elapsedMs(start, child.lastResponseAt);
  if (response.error || response.result?.isError) {
    throw new Error(`tools/call ${call.name} failed: ${JSON.stringify(response.error ?? response.result)}`);
  }
  return ms;
}

/**
 * One long-lived process per side: idle RSS 500 ms after initialize, tools/list footprint, then sequential
 * tool calls alternating server/baseline, then peak RSS.
 * @param {{server: Side, baseline: Side, calls: number, callWarmup: number, idleMs: number, tmp: string,
 *   configuredTool: {tool?: string, arguments?: Record<string, unknown>,
 *     setup?: {tool: string, arguments?: Record<string, unknown>}[]} | undefined, log: (s: string) => void}} o
 */
export async function steadyState({ server, baseline, calls, callWarmup, idleMs, tmp, configuredTool, log }) {
  const serverChild = new Child(server.script, server.args(mkdtempSync(join(tmp, 'steady-'))), childEnv());
  const baselineChild = new Child(baseline.script, baseline.args(tmp), childEnv());
  try {
    for (const child of [serverChild, baselineChild]) {
      const response = await child.initialize();
      if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
      child.notify('notifications/initialized');
    }
    await sleep(idleMs);
    const idleRssKiB = { server: serverChild.memoryKiB('VmRSS'), baseline: baselineChild.memoryKiB('VmRSS') };
    log(`  idle RSS: server ${idleRssKiB.server} KiB, baseline ${idleRssKiB.baseline} KiB`);

    const serverList = await listTools(serverChild);
    const baselineList = await listTools(baselineChild);
    const tool = pickTool(serverList.tools, configuredTool);
    const echo = { name: 'echo', arguments: { text: 'hello' } };
    /** @type {{server: number[], baseline: number[]}} */
    const samples = { server: [], baseline: [] };
    /** @type {{server: number | null, baseline: number | null}} CPU (user+system) per call, ms */
    const cpuPerCallMs = { server: null, baseline: null };
    if (tool) {
      // shipyard.bench.setup: calls made once before measuring (e.g. create the project tickets go into).
      for (const step of configuredTool?.setup ?? []) {
        await timedCall(serverChild, { name: step.tool, arguments: step.arguments ?? {} });
      }
      const serverCall = { name: tool.name, arguments: tool.arguments };
      log(
        `  tool calls: server ${tool.name} ${JSON.stringify(tool.arguments)} (${tool.source}) vs baseline echo`,
      );
      for (let i = 0; i < callWarmup; i++) {
        await timedCall(serverChild, serverCall);
        await timedCall(baselineChild, echo);
      }
      const cpuBefore = { server: serverChild.cpuMs(), baseline: baselineChild.cpuMs() };
      for (let i = 0; i < calls; i++) {
        samples.server.push(await timedCall(serverChild, serverCall));
        samples.baseline.push(await timedCall(baselineChild, echo));
      }
      const cpuAfter = { server: serverChild.cpuMs(), baseline: baselineChild.cpuMs() };
      for (const side of /** @type {const} */ (['server', 'baseline'])) {
        const before = cpuBefore[side];
        const after = cpuAfter[side];
        cpuPerCallMs[side] = before === null || after === null ? null : (after - before) / calls;
      }
    } else {
      log(
        '  tool calls: SKIPPED, no tool has readOnlyHint true and package.json has no ' +
          '"shipyard": {"bench": {"tool", "arguments"}}',
      );
    }
    const peakRssKiB = { server: serverChild.memoryKiB('VmHWM'), baseline: baselineChild.memoryKiB('VmHWM') };
    log(`  peak RSS: server ${peakRssKiB.server} KiB, baseline ${peakRssKiB.baseline} KiB`);
    return {
      tool,
      latency: tool
        ? {
            samples,
            server: latencySummary(samples.server),
            baseline: latencySummary(samples.baseline),
            cpuPerCallMs,
          }
        : null,
      idleRssKiB,
      peakRssKiB,
      footprint: {
        server: footprint(serverList.tools, serverList.pages),
        baseline: footprint(baselineList.tools, baselineList.pages),
      },
    };
  } finally {
    await Promise.all([serverChild.stop(), baselineChild.stop()]);
  }
}
