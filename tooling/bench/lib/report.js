// Markdown for one server's results. The JSON written next to it carries the raw samples.
import { ratio } from './stats.js';

/** Targets from DESIGN.md §8 and the bench brief: server/baseline ratios. */
export const TARGETS = {
  coldStart: 0.7,
  idleRss: 1.1,
  callP50: 1.3,
};

/**
 * The targets a server is judged on: TARGETS, overridden by its package.json `shipyard.bench.targets`.
 * @param {{targets?: Partial<typeof TARGETS>} | undefined} bench
 */
export function targetsFor(bench) {
  return { ...TARGETS, ...(bench?.targets ?? {}) };
}

/** @param {number} ms @param {number} [digits] */
const fmtMs = (ms, digits = 1) => (Number.isFinite(ms) ? ms.toFixed(digits) : 'n/a');
/** @param {number | null} kib */
const fmtMiB = (kib) => (kib == null ? 'n/a' : (kib / 1024).toFixed(1));
/** @param {number} r */
const fmtRatio = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : 'n/a');
/** @param {number} r @param {number | undefined} target */
const verdict = (r, target) =>
  target === undefined || !Number.isFinite(r) ? '' : r <= target ? 'PASS' : 'MISS';
/** @param {number | undefined} target */
const fmtTarget = (target) => (target === undefined ? '' : `<= ${target.toFixed(2)}`);
/**
 * The ratio, target and result cells of a row: judged against `target`, or with the last two empty.
 * @param {number} r @param {number} [target]
 */
const judged = (r, target) => [fmtRatio(r), fmtTarget(target), verdict(r, target)];

/**
 * Every ratio the bench reports, with its target where one exists.
 * @param {any} result
 */
export function ratios(result) {
  const { cold, steady } = result;
  const lat = steady.latency;
  return {
    coldStart: ratio(cold.server.median, cold.baseline.median),
    coldStartExisting: ratio(cold.serverExisting.median, cold.baseline.median),
    coldStartFirst: ratio(cold.serverFirst.median, cold.baseline.median),
    idleRss: ratio(steady.idleRssKiB.server ?? Number.NaN, steady.idleRssKiB.baseline ?? Number.NaN),
    peakRss: ratio(steady.peakRssKiB.server ?? Number.NaN, steady.peakRssKiB.baseline ?? Number.NaN),
    callP50: ratio(lat?.server.p50 ?? Number.NaN, lat?.baseline.p50 ?? Number.NaN),
    callP95: ratio(lat?.server.p95 ?? Number.NaN, lat?.baseline.p95 ?? Number.NaN),
    callP99: ratio(lat?.server.p99 ?? Number.NaN, lat?.baseline.p99 ?? Number.NaN),
    callCpu: ratio(lat?.cpuPerCallMs?.server ?? Number.NaN, lat?.cpuPerCallMs?.baseline ?? Number.NaN),
    toolsList: ratio(steady.footprint.server.totalChars, steady.footprint.baseline.totalChars),
  };
}

/**
 * @param {string[]} header
 * @param {(string | number)[][]} rows
 * @param {('l' | 'r')[]} align
 */
function table(header, rows, align) {
  const sep = align.map((a) => (a === 'r' ? '---:' : '---'));
  return [header, sep, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
}

/**
 * @param {any} result  what run.js collected for one server
 * @returns {string}
 */
export function markdown(result) {
  const { cold, steady, meta } = result;
  const targets = meta.targets ?? TARGETS;
  const r = ratios(result);
  const none = { n: 0, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN };
  const lat = steady.latency ?? { server: none, baseline: none };
  const fp = steady.footprint;
  const out = [];

  out.push(`# Shipyard bench: ${meta.server}`, '');
  out.push(
    `- Machine: ${meta.machine.cpu}, ${meta.machine.cores} cores` +
      (meta.machine.cpusAllowed ? ` (this run on CPUs ${meta.machine.cpusAllowed})` : '') +
      `, ${meta.machine.memGiB} GiB RAM, ${meta.machine.os} (load average at start ${meta.machine.loadavg})`,
    `- Node: ${meta.node}`,
    `- Date: ${meta.date}`,
    `- Runs: cold start ${meta.runs} per side after ${meta.warmup} warm-up rounds, alternating ` +
      `server / baseline / server (existing data dir) / server (first start: no code cache); tool calls ${meta.calls} per side after ` +
      `${meta.callWarmup} warm-up calls, alternating server / baseline call by call`,
    `- Server: \`node ${meta.bin} --data-dir <temp dir>\`; cheap tool ` +
      (steady.tool
        ? `\`${steady.tool.name}\` \`${JSON.stringify(steady.tool.arguments)}\` (${steady.tool.source})`
        : 'none: no tool has readOnlyHint true and package.json has no shipyard.bench, so no latency run'),
    `- Baseline: \`node ${meta.baseline}\` (bare @modelcontextprotocol/sdk ${meta.sdkVersion}, ` +
      'McpServer + one `echo` tool with a zod input shape, unbundled); called as `echo {"text":"hello"}`',
    "- NODE_EXTRA_CA_CERTS removed from both sides' environment",
    '',
  );

  out.push('## Summary (server / baseline)', '');
  const cs = cold.server;
  const cb = cold.baseline;
  const ce = cold.serverExisting;
  const cf = cold.serverFirst;
  out.push(
    table(
      ['metric', 'server', 'baseline', 'ratio', 'target', 'result'],
      [
        [
          'cold start, median ms (fresh data dir)',
          fmtMs(cs.median),
          fmtMs(cb.median),
          ...judged(r.coldStart, targets.coldStart),
        ],
        [
          'cold start, median ms (existing data dir)',
          fmtMs(ce.median),
          fmtMs(cb.median),
          ...judged(r.coldStartExisting, targets.coldStart),
        ],
        [
          'cold start, median ms (first start: no code cache yet)',
          fmtMs(cf.median),
          fmtMs(cb.median),
          ...judged(r.coldStartFirst, targets.coldStart),
        ],
        [
          'tool call p50 ms',
          fmtMs(lat.server.p50, 3),
          fmtMs(lat.baseline.p50, 3),
          ...judged(r.callP50, targets.callP50),
        ],
        ['tool call p95 ms', fmtMs(lat.server.p95, 3), fmtMs(lat.baseline.p95, 3), ...judged(r.callP95)],
        ['tool call p99 ms', fmtMs(lat.server.p99, 3), fmtMs(lat.baseline.p99, 3), ...judged(r.callP99)],
        [
          'CPU per tool call ms (user+sys)',
          fmtMs(lat.cpuPerCallMs?.server ?? Number.NaN, 3),
          fmtMs(lat.cpuPerCallMs?.baseline ?? Number.NaN, 3),
          ...judged(r.callCpu),
        ],
        [
          'idle RSS MiB (VmRSS)',
          fmtMiB(steady.idleRssKiB.server),
          fmtMiB(steady.idleRssKiB.baseline),
          ...judged(r.idleRss, targets.idleRss),
        ],
        [
          'peak RSS MiB (VmHWM)',
          fmtMiB(steady.peakRssKiB.server),
          fmtMiB(steady.peakRssKiB.baseline),
          ...judged(r.peakRss),
        ],
        [
          'tools/list chars (~tokens)',
          `${fp.server.totalChars} (~${fp.server.totalTokens})`,
          `${fp.baseline.totalChars} (~${fp.baseline.totalTokens})`,
          ...judged(r.toolsList),
        ],
      ],
      ['l', 'r', 'r', 'r', 'l', 'l'],
    ),
    '',
  );

  out.push('## Cold start (spawn to parsed `initialize` result), ms', '');
  out.push(
    table(
      ['side', 'n', 'min', 'p25', 'median', 'p75', 'max', 'paired ratio'],
      [
        ['server, fresh data dir', cs, cold.pairedRatio.server],
        ['server, existing data dir', ce, cold.pairedRatio.serverExisting],
        ['server, first start (no code cache yet)', cf, cold.pairedRatio.serverFirst],
        ['baseline', cb, Number.NaN],
      ].map(([label, s, paired]) => [
        label,
        s.n,
        fmtMs(s.min),
        fmtMs(s.p25),
        fmtMs(s.median),
        fmtMs(s.p75),
        fmtMs(s.max),
        Number.isFinite(paired) ? fmtRatio(paired) : '',
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
  );

  out.push(
    'Paired ratio: the median over rounds of (server start / baseline start in the same round); it moves ' +
      'less than the ratio of medians when the load changes during the run.',
    '',
  );

  out.push('## Tool-call latency over stdio (write request to parsed response), ms', '');
  if (!steady.latency) out.push('Not measured: no cheap tool (see above).', '');
  else
    out.push(
      table(
        ['side', 'tool', 'n', 'p50', 'p95', 'p99', 'min', 'max', 'mean'],
        [
          ['server', steady.tool?.name, lat.server],
          ['baseline', 'echo', lat.baseline],
        ].map(([label, tool, s]) => [
          label,
          `\`${tool}\``,
          s.n,
          ...['p50', 'p95', 'p99', 'min', 'max', 'mean'].map((k) => fmtMs(s[k], 3)),
        ]),
        ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
      '',
    );

  out.push(
    '## Context footprint (`tools/list` result)',
    '',
    'Characters of `JSON.stringify` of each tool and of the whole result; tokens approximated as ceil(chars / 4).',
    '',
  );
  const rows = fp.server.tools.map((t) => [
    `\`${t.name}\``,
    t.chars,
    `~${t.tokens}`,
    t.descriptionChars,
    t.readOnlyHint ? 'yes' : '',
  ]);
  rows.push([
    `**server total** (${fp.server.tools.length} tools, ${fp.server.pages} page${fp.server.pages === 1 ? '' : 's'})`,
    fp.server.totalChars,
    `~${fp.server.totalTokens}`,
    '',
    '',
  ]);
  rows.push(['baseline total (`echo`)', fp.baseline.totalChars, `~${fp.baseline.totalTokens}`, '', '']);
  out.push(
    table(['tool', 'chars', 'tokens', 'description chars', 'readOnlyHint'], rows, ['l', 'r', 'r', 'r', 'l']),
    '',
  );

  out.push(
    'Targets are ratios to the baseline measured in the same run; a MISS is a measurement, not a failure ' +
      '(the bench exits 0). Absolute milliseconds vary from run to run on this machine; compare ratios.',
    '',
  );
  return out.join('\n');
}
