// A server on PostgreSQL (`--database-url`): each scenario's calls against the same server on SQLite and the
// baseline's echo, all three interleaved in the same run; then calls per second over HTTP with one and two
// replicas on one database.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Child, type Message } from './child.ts';
import type { Side } from './measure.ts';
import { type BenchPostgres, scenarioDatabase } from './postgres.ts';
import type { Scenario, SeedContext, ServerBench, ToolCall } from './scenario.ts';
import { type Latency, latency } from './stats.ts';
import { type ThroughputResult, throughput } from './throughput.ts';

type Log = (line: string) => void;

const elapsedMs = (from: bigint, to: bigint): number => Number(to - from) / 1e6;

async function timedCall(child: Child, call: ToolCall): Promise<number> {
  const start = process.hrtime.bigint();
  const response: Message = await child.request('tools/call', call);
  const ms = elapsedMs(start, child.lastResponseAt);
  if (response.error || response.result?.isError) {
    throw new Error(`tools/call ${call.name} failed: ${JSON.stringify(response.error ?? response.result)}`);
  }
  return ms;
}

export interface PostgresScenarioResult {
  name: string;
  postgres: Latency;
  sqlite: Latency;
  echo: Latency;
  target: number | undefined;
}

export interface PostgresRun {
  scenarios: PostgresScenarioResult[];
  /** Scenarios left out, with why. */
  skipped: string[];
  throughput?: ThroughputResult;
}

/** A server that refuses a database URL: the bench says so without a stack trace. */
export class NotOnPostgres extends Error {}

const ECHO: ToolCall = { name: 'echo', arguments: { text: 'hello' } };

/**
 * Starts the server once on an empty database of its own: a server that stores only in SQLite refuses the
 * URL at start, and the bench stops with that.
 */
async function checkTakesUrl(o: { name: string; side: Side; pg: BenchPostgres; tmp: string }): Promise<void> {
  const database = await scenarioDatabase(o.pg);
  const child = new Child(o.side.script, o.side.args(mkdtempSync(join(o.tmp, 'check-'))), {
    SHIPYARD_DATABASE_URL: database.url,
  });
  try {
    await child.initialize();
    await child.request('tools/list', {});
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    throw new NotOnPostgres(
      `${o.name} does not run on PostgreSQL: it stopped when given a database URL ` +
        `(its server definition needs \`postgres: true\` and a PostgreSQL store).\n${said}`,
    );
  } finally {
    await child.stop();
    await database.drop();
  }
}

async function scenarioOnPostgres(o: {
  scenario: Scenario;
  server: Side;
  baseline: Side;
  pg: BenchPostgres;
  calls: number;
  warmup: number;
  smoke: boolean;
  root: string;
  tmp: string;
  log: Log;
}): Promise<PostgresScenarioResult> {
  const s = o.scenario;
  const context: SeedContext = {
    dataDir: mkdtempSync(join(o.tmp, 'scenario-')),
    root: o.root,
    smoke: o.smoke,
  };
  const database = await scenarioDatabase(o.pg);
  const children: Child[] = [];
  try {
    if (s.seed || s.seedPostgres) {
      const started = Date.now();
      await s.seed?.(context);
      const sqliteSeconds = (Date.now() - started) / 1000;
      await s.seedPostgres?.({ databaseUrl: database.url, root: o.root, smoke: o.smoke });
      o.log(
        `  ${s.name}: seeded SQLite in ${sqliteSeconds.toFixed(1)} s, PostgreSQL in ` +
          `${((Date.now() - started) / 1000 - sqliteSeconds).toFixed(1)} s`,
      );
    }
    const onPostgres = new Child(o.server.script, o.server.args(mkdtempSync(join(o.tmp, 'pg-'))), {
      SHIPYARD_DATABASE_URL: database.url,
    });
    children.push(onPostgres);
    const onSqlite = new Child(o.server.script, o.server.args(context.dataDir));
    children.push(onSqlite);
    const baseline = new Child(o.baseline.script, o.baseline.args(o.tmp));
    children.push(baseline);
    for (const child of children) {
      await child.initialize();
      child.notify('notifications/initialized');
    }
    for (const call of s.setup ?? []) {
      await timedCall(onPostgres, call);
      await timedCall(onSqlite, call);
    }
    const runs = o.smoke ? Math.min(o.calls, s.runs ?? o.calls) : (s.runs ?? o.calls);
    const samples = { postgres: [] as number[], sqlite: [] as number[], echo: [] as number[] };
    for (let i = 0; i < o.warmup + runs; i++) {
      const call = s.calls[i % s.calls.length] as ToolCall;
      const p = await timedCall(onPostgres, call);
      const q = await timedCall(onSqlite, call);
      const e = await timedCall(baseline, ECHO);
      if (i < o.warmup) continue;
      samples.postgres.push(p);
      samples.sqlite.push(q);
      samples.echo.push(e);
    }
    const result: PostgresScenarioResult = {
      name: s.name,
      postgres: latency(samples.postgres),
      sqlite: latency(samples.sqlite),
      echo: latency(samples.echo),
      // A target is against the echo only when the scenario has no reference of its own.
      target: s.reference ? undefined : s.target,
    };
    o.log(
      `  ${s.name}: p50 PostgreSQL ${result.postgres.p50.toFixed(3)} ms, SQLite ` +
        `${result.sqlite.p50.toFixed(3)} ms, echo ${result.echo.p50.toFixed(3)} ms`,
    );
    return result;
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    await database.drop();
    rmSync(context.dataDir, { recursive: true, force: true });
  }
}

/** Every scenario that can run on PostgreSQL, then the throughput, if the server's bench has one. */
export async function benchOnPostgres(o: {
  name: string;
  bench: ServerBench;
  server: Side;
  baseline: Side;
  pg: BenchPostgres;
  calls: number;
  warmup: number;
  clients: number;
  seconds: number;
  rounds: number;
  smoke: boolean;
  root: string;
  tmp: string;
  log: Log;
}): Promise<PostgresRun> {
  await checkTakesUrl({ name: o.name, side: o.server, pg: o.pg, tmp: o.tmp });
  const run: PostgresRun = { scenarios: [], skipped: [] };
  for (const scenario of o.bench.scenarios) {
    if (scenario.seed && !scenario.seedPostgres) {
      o.log(`  ${scenario.name}: no seedPostgres in its scenario: skipped on PostgreSQL`);
      run.skipped.push(`${scenario.name} (no PostgreSQL seed)`);
      continue;
    }
    run.scenarios.push(await scenarioOnPostgres({ ...o, scenario }));
  }
  if (o.bench.throughput) {
    const database = await scenarioDatabase(o.pg);
    try {
      run.throughput = await throughput({
        spec: o.bench.throughput,
        script: o.server.script,
        databaseUrl: database.url,
        dataDir: mkdtempSync(join(o.tmp, 'http-')),
        clients: o.clients,
        seconds: o.seconds,
        rounds: o.rounds,
        log: o.log,
      });
    } finally {
      await database.drop();
    }
  }
  return run;
}
