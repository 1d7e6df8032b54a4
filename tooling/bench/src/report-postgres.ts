// A server's figures on PostgreSQL, as RESULTS.md keeps them: their own section, `<server>-postgres`, beside
// the server's SQLite one.
import type { PostgresRun } from './measure-postgres.ts';
import type { Meta } from './report.ts';
import { ratio } from './stats.ts';
import { throughputMedians } from './throughput.ts';

export interface PostgresResult {
  meta: Meta & { database: string; clients: number; seconds: number; rounds: number };
  run: PostgresRun;
}

/** The markers' name of a server's PostgreSQL section. */
export const postgresSectionName = (server: string): string => `${server}-postgres`;

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
const times = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(2)}x` : 'n/a');
const target = (t: number | undefined): string => (t === undefined ? '' : `<= ${times(t)}`);

/** Every ratio the tables print, by row; --smoke checks that each is a number. */
export function postgresRatios(result: PostgresResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of result.run.scenarios) {
    for (const p of ['p50', 'p95'] as const) {
      out[`${s.name} ${p} / echo`] = ratio(s.postgres[p], s.echo[p]);
      out[`${s.name} ${p} / SQLite`] = ratio(s.postgres[p], s.sqlite[p]);
    }
  }
  const t = result.run.throughput;
  if (t) {
    const m = throughputMedians(t);
    out['HTTP one replica, calls/s'] = m.one;
    out['HTTP two replicas / one'] = ratio(m.two, m.one);
  }
  return out;
}

export function postgresSection(result: PostgresResult): string {
  const { meta, run } = result;
  const name = postgresSectionName(meta.server);
  const lines = [
    `<!-- bench:${name} -->`,
    `## ${meta.server} on PostgreSQL`,
    '',
    `- Machine: ${meta.machine}`,
    `- Date: ${meta.date}; commit ${meta.commit}; database ${meta.database === 'auto' ? 'a throwaway local cluster (initdb, fsync off)' : meta.database}`,
    `- Method: \`${meta.command}\`: per scenario ${meta.calls} timed calls per side (fewer where the scenario says) ` +
      `after ${meta.callWarmup} warm-up calls, over stdio; the server on a fresh PostgreSQL database, the same ` +
      "server on SQLite (the scenario's seed in both) and the baseline's `echo`, interleaved call by call.",
  ];
  if (run.throughput) {
    const t = run.throughput;
    lines.push(
      `- HTTP: ${t.clients} clients in the bench process, each with its own session, calling in a loop for ` +
        `${t.seconds} s per round, ${meta.rounds} rounds of each kind alternated after a warm-up round; server ` +
        'processes on `--transport http --replica-id a|b` with a token, on one database. Two replicas: the ' +
        'clients are spread over both by the client, each session staying on its replica (no proxy).',
    );
  }
  if (run.skipped.length) lines.push(`- Not run on PostgreSQL: ${run.skipped.join('; ')}.`);
  lines.push(
    '',
    '| figure | PostgreSQL | SQLite | baseline `echo` | vs `echo` | vs SQLite | target (vs `echo`) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  );
  for (const s of run.scenarios) {
    for (const p of ['p50', 'p95'] as const) {
      lines.push(
        `| ${s.name}, ${p} ms | ${ms(s.postgres[p])} | ${ms(s.sqlite[p])} | ${ms(s.echo[p])} | ` +
          `${times(ratio(s.postgres[p], s.echo[p]))} | ${times(ratio(s.postgres[p], s.sqlite[p]))} | ` +
          `${p === 'p50' ? target(s.target) : ''} |`,
      );
    }
  }
  if (run.throughput) {
    const t = run.throughput;
    const m = throughputMedians(t);
    lines.push(
      '',
      `| HTTP, ${t.name}, ${t.clients} clients | calls/s, median | rounds | vs one replica |`,
      '| --- | ---: | --- | ---: |',
      `| one replica | ${m.one.toFixed(0)} | ${t.one.map((v) => v.toFixed(0)).join(', ')} | 1.00x |`,
      `| two replicas, one database | ${m.two.toFixed(0)} | ${t.two.map((v) => v.toFixed(0)).join(', ')} | ${times(ratio(m.two, m.one))} |`,
    );
  }
  lines.push(`<!-- /bench:${name} -->`);
  return lines.join('\n');
}
