// One server's results as the table RESULTS.md keeps, and the update of that file.
import { readFileSync, writeFileSync } from 'node:fs';
import type { ColdStart, Idle, ScenarioResult } from './measure.ts';
import { ratio } from './stats.ts';

export interface Meta {
  server: string;
  machine: string;
  date: string;
  commit: string;
  command: string;
  runs: number;
  warmup: number;
  calls: number;
  callWarmup: number;
}

export interface Result {
  meta: Meta;
  cold: ColdStart;
  idle: Idle;
  scenarios: ScenarioResult[];
  coldStartTarget: number | undefined;
}

const ms = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (kib: number | null): string => (kib === null ? 'n/a' : (kib / 1024).toFixed(1));
/** 0.48x; below 0.2 also as a fraction, 0.033x (1/30). */
function times(r: number): string {
  if (!Number.isFinite(r)) return 'n/a';
  return r < 0.2 ? `${r.toFixed(3)}x (1/${Math.round(1 / r)})` : `${r.toFixed(2)}x`;
}
const target = (t: number | undefined): string => (t === undefined ? '' : `<= ${times(t)}`);
const tokens = (chars: number): number => Math.ceil(chars / 4);

/** Every ratio the table prints, by row; --smoke checks that each is a number. */
export function ratios(result: Result): Record<string, number> {
  const { cold, idle } = result;
  const out: Record<string, number> = {
    'cold start': ratio(cold.fresh, cold.baseline),
    'cold start, existing data dir': ratio(cold.existing, cold.baseline),
    'cold start, first start': ratio(cold.first, cold.baseline),
    'tools/list': ratio(idle.toolsListChars.server, idle.toolsListChars.baseline),
  };
  if (process.platform === 'linux') out['idle RSS'] = ratio(idle.rssKiB.server, idle.rssKiB.baseline);
  for (const s of result.scenarios) {
    out[`${s.name} p50`] = ratio(s.server.p50, s.against.p50);
    out[`${s.name} p95`] = ratio(s.server.p95, s.against.p95);
  }
  return out;
}

const START = (server: string) => `<!-- bench:${server} -->`;
const END = (server: string) => `<!-- /bench:${server} -->`;

/** The server's section of RESULTS.md, between markers that `--results` finds again. */
export function section(result: Result): string {
  const { meta, cold, idle } = result;
  const cs = ratio(cold.fresh, cold.baseline);
  const rows: string[][] = [
    [
      'cold start, median ms (fresh data dir)',
      ms(cold.fresh),
      `${ms(cold.baseline)} (baseline)`,
      times(cs),
      target(result.coldStartTarget),
    ],
    [
      'cold start, existing data dir',
      ms(cold.existing),
      `${ms(cold.baseline)} (baseline)`,
      times(ratio(cold.existing, cold.baseline)),
      target(result.coldStartTarget),
    ],
    [
      'cold start, first start (no code cache)',
      ms(cold.first),
      `${ms(cold.baseline)} (baseline)`,
      times(ratio(cold.first, cold.baseline)),
      '',
    ],
  ];
  for (const s of result.scenarios) {
    rows.push([
      `${s.name}, p50 ms`,
      ms(s.server.p50, 3),
      `${ms(s.against.p50, 3)} (${s.reference})`,
      times(ratio(s.server.p50, s.against.p50)),
      target(s.target),
    ]);
    rows.push([
      `${s.name}, p95 ms`,
      ms(s.server.p95, 3),
      `${ms(s.against.p95, 3)} (${s.reference})`,
      times(ratio(s.server.p95, s.against.p95)),
      '',
    ]);
    if (s.dataBytes !== undefined) {
      rows.push([`${s.name}, data files, MiB`, (s.dataBytes / 1024 / 1024).toFixed(1), '', '', '']);
    }
  }
  rows.push([
    'idle RSS, MiB',
    mib(idle.rssKiB.server),
    `${mib(idle.rssKiB.baseline)} (baseline)`,
    times(ratio(idle.rssKiB.server, idle.rssKiB.baseline)),
    '',
  ]);
  rows.push([
    `context footprint, tools/list tokens (${idle.tools} tools)`,
    String(tokens(idle.toolsListChars.server)),
    `${tokens(idle.toolsListChars.baseline)} (baseline, 1 tool)`,
    times(ratio(idle.toolsListChars.server, idle.toolsListChars.baseline)),
    '',
  ]);
  return [
    START(meta.server),
    `## ${meta.server}`,
    '',
    `- Machine: ${meta.machine}`,
    `- Date: ${meta.date}; commit ${meta.commit}`,
    `- Method: \`${meta.command}\`: ${meta.runs} cold starts per side after ${meta.warmup} warm-up rounds; ` +
      `per scenario ${meta.calls} timed calls per side (fewer where the scenario says) after ${meta.callWarmup} ` +
      'warm-up calls; both sides interleaved in the same run.',
    '',
    '| figure | server | reference | ratio | target |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    END(meta.server),
  ].join('\n');
}

/** Replace the server's section in the results file, or append it. */
export function writeSection(file: string, result: Result): void {
  replaceSection(file, result.meta.server, section(result));
}

/** Replace the section between `name`'s markers in the results file with `text` (markers included), or append it. */
export function replaceSection(file: string, name: string, text: string): void {
  const before = readFileSync(file, 'utf8');
  const start = before.indexOf(START(name));
  const endMarker = END(name);
  const end = before.indexOf(endMarker);
  const next =
    start !== -1 && end > start
      ? before.slice(0, start) + text + before.slice(end + endMarker.length)
      : `${before.trimEnd()}\n\n${text}\n`;
  writeFileSync(file, next);
}
