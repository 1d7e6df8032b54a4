// pnpm bench [server…] [--one-cpu] [--smoke] [--no-build] [--results] [--runs N] [--calls N] [--database-url URL|auto]
// Benchmarks each server's built bin against the bare SDK server in baseline/. See ../README.md.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { benchCharts, CHARTS, chartsFigures, chartsSection } from './charts.ts';
import { cpusAllowed } from './child.ts';
import { coldStart, idle, type ScenarioResult, type Side, scenario } from './measure.ts';
import { benchOnPostgres, NotOnPostgres } from './measure-postgres.ts';
import { AUTO, type BenchPostgres, benchPostgres } from './postgres.ts';
import { type Result, ratios, replaceSection, section, writeSection } from './report.ts';
import {
  type PostgresResult,
  postgresRatios,
  postgresSection,
  postgresSectionName,
} from './report-postgres.ts';
import type { ServerBench } from './scenario.ts';

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = resolve(here, '..');
const root = resolve(benchDir, '../..');
const baselineScript = join(benchDir, 'baseline', 'server.js');

const HELP = `Usage: pnpm bench [server…] [charts] [options]

Benchmarks the bins of servers/<server>/ against tooling/bench/baseline/server.js, a bare SDK server with
one echo tool. With no names: every servers/*/ package with a built dist/index.cjs. Scenarios come from
tooling/bench/scenarios/<server>.ts. The name charts times @shipyard/charts: its first and later charts.

Options:
  --one-cpu        run again under taskset on one allowed CPU (Linux), harness and servers alike
  --results        write each server's table into tooling/bench/RESULTS.md
  --no-build       skip the turbo build (the bins must be built)
  --smoke          check the harness quickly: 2 cold starts, 10 calls, small seeds, no build; exits 1 if a
                   figure is missing
  --runs N         cold starts per side (default 21)
  --warmup N       cold-start warm-up rounds, dropped (default 2)
  --calls N        timed calls per side and scenario (default 500; a scenario may ask for fewer)
  --call-warmup N  warm-up calls per side and scenario, dropped (default 20)
  --database-url URL|auto
                   run the servers on PostgreSQL (a fresh database per scenario on the server URL names, or
                   with auto a throwaway cluster, stopped at the end): each scenario against the same server
                   on SQLite and the baseline's echo, then HTTP calls per second with one and two replicas
  --clients N      HTTP clients with --database-url (default 16)
  --http-seconds S length of an HTTP round with --database-url (default 5)
  -h, --help       this text

The tables go to stdout, raw figures to tooling/bench/results/<server>.json, progress to stderr.
Exits 0 whether or not targets are met, 1 when the harness failed.
`;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function count(value: string | undefined, fallback: number, name: string, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} wants a whole number from ${min}, got ${value}`);
  return n;
}

interface Server {
  name: string;
  pkgName: string;
  bin: string;
}

/** The servers named (`tickets` or `@shipyard/tickets`), else every built one. */
function findServers(names: string[]): Server[] {
  const dir = join(root, 'servers');
  const all = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'package.json')))
    .map((d) => d.name);
  const wanted = names.length
    ? names.map((n) => {
        const name = n.replace(/^@shipyard\//, '').replace(/^servers\//, '');
        if (!all.includes(name)) throw new Error(`no package servers/${name} (have: ${all.join(', ')})`);
        return name;
      })
    : all.filter((name) => existsSync(join(dir, name, 'dist', 'index.cjs')));
  return wanted.map((name) => {
    const pkg = JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8'));
    const bins: string[] = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
    return { name, pkgName: pkg.name, bin: resolve(dir, name, bins[0] ?? 'dist/index.cjs') };
  });
}

/** scenarios/<server>.ts, or only the generic figures when there is none. */
async function loadBench(name: string): Promise<ServerBench> {
  const file = join(benchDir, 'scenarios', `${name}.ts`);
  if (!existsSync(file)) {
    log(`  no tooling/bench/scenarios/${name}.ts: cold start, RSS and footprint only`);
    return { scenarios: [] };
  }
  return (await import(pathToFileURL(file).href)).default as ServerBench;
}

function build(pkgNames: string[]): void {
  const filters = pkgNames.map((p) => `--filter=${p}...`);
  log(`> pnpm exec turbo run build ${filters.join(' ')}`);
  const result = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', ...filters], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) throw new Error(`build failed (exit ${result.status ?? result.signal})`);
}

function machine(): string {
  const cpu = cpus();
  const allowed = cpusAllowed();
  const oneCpu = process.env.SHIPYARD_BENCH_ONE_CPU;
  return (
    `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB, ` +
    `${type()} ${release()}, Node ${process.version}; ` +
    (oneCpu ? `on CPU ${oneCpu} only` : `on CPUs ${allowed ?? 'all'}`) +
    `; load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`
  );
}

function commit(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD').stdout.trim() || 'unknown';
  return git('status', '--porcelain').stdout.trim() ? `${head} with uncommitted changes` : head;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string' },
      warmup: { type: 'string' },
      calls: { type: 'string' },
      'call-warmup': { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'one-cpu': { type: 'boolean', default: false },
      results: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      'database-url': { type: 'string' },
      clients: { type: 'string' },
      'http-seconds': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values['one-cpu'] && process.env.SHIPYARD_BENCH_ONE_CPU === undefined) {
    // The same command again under taskset, on the last CPU this process may use; children inherit it.
    const cpu = cpusAllowed()?.split(/[,-]/).at(-1);
    if (!cpu) throw new Error('--one-cpu: the CPUs this process may use are unknown (/proc/self/status)');
    const again = spawnSync(
      'taskset',
      ['-c', cpu, process.execPath, ...process.execArgv, ...process.argv.slice(1)],
      {
        stdio: 'inherit',
        env: { ...process.env, SHIPYARD_BENCH_ONE_CPU: cpu },
      },
    );
    if (again.error) throw new Error(`--one-cpu needs taskset (util-linux): ${again.error.message}`);
    if (again.signal) throw new Error(`the run under taskset ended on ${again.signal}`);
    return again.status ?? 1;
  }
  const smoke = values.smoke;
  if (smoke && values.results) throw new Error('--smoke figures are not results: drop --results');
  const runs = count(values.runs, smoke ? 2 : 21, 'runs');
  const warmup = count(values.warmup, smoke ? 0 : 2, 'warmup', 0);
  const calls = count(values.calls, smoke ? 10 : 500, 'calls');
  const callWarmup = count(values['call-warmup'], smoke ? 2 : 20, 'call-warmup', 0);

  const charts = positionals.includes(CHARTS);
  const names = positionals.filter((name) => name !== CHARTS);
  const servers = charts && names.length === 0 ? [] : findServers(names);
  if (servers.length === 0 && !charts)
    throw new Error('no built server (servers/*/dist/index.cjs): run `pnpm build`');
  const databaseUrl = values['database-url']?.trim();
  const toBuild = [
    ...servers.map((s) => s.pkgName),
    ...(charts ? ['@shipyard/charts'] : []),
    ...(databaseUrl ? ['@shipyard/testing'] : []),
  ];
  if (!smoke && !values['no-build']) build(toBuild);
  if (values['database-url'] !== undefined && !databaseUrl)
    throw new Error(`--database-url wants a postgres:// URL or ${AUTO}`);
  const clients = count(values.clients, smoke ? 4 : 16, 'clients');
  const httpSeconds = count(values['http-seconds'], smoke ? 1 : 5, 'http-seconds');
  if (databaseUrl)
    log(
      `PostgreSQL: ${databaseUrl === AUTO ? 'starting a throwaway cluster' : 'the server --database-url names'}`,
    );
  const pg = databaseUrl ? await benchPostgres(databaseUrl) : undefined;
  try {
    return await benchAll();
  } finally {
    await pg?.stop();
  }

  async function benchAll(): Promise<number> {
    const outDir = join(benchDir, 'results', ...(smoke ? ['smoke'] : []));
    mkdirSync(outDir, { recursive: true });
    const baseline: Side = { script: baselineScript, args: () => [] };
    const measuredCommit = commit(); // before --results writes RESULTS.md
    let failed = 0;
    for (const server of servers) {
      if (!existsSync(server.bin)) {
        log(`${server.name}: ${relative(root, server.bin)} is missing: run \`pnpm build\``);
        failed++;
        continue;
      }
      const tmp = mkdtempSync(join(tmpdir(), `shipyard-bench-${server.name}-`));
      try {
        log(`bench ${server.name}: ${relative(root, server.bin)} against ${relative(root, baselineScript)}`);
        const machineAtStart = machine();
        const bench = await loadBench(server.name);
        const side: Side = { script: server.bin, args: (dataDir) => ['--data-dir', dataDir] };
        if (pg) {
          failed += await onPostgres({
            server,
            bench,
            side,
            baseline,
            pg,
            machine: machineAtStart,
            commit: measuredCommit,
            runs,
            warmup,
            calls,
            callWarmup,
            clients,
            httpSeconds,
            smoke,
            results: values.results,
            outDir,
            tmp,
          });
          continue;
        }
        const codeCache = join(dirname(server.bin), 'bundle.cjs.cache');
        const cold = await coldStart({
          server: side,
          baseline,
          dropCodeCache: () => rmSync(codeCache, { force: true }),
          runs,
          warmup,
          tmp,
          log,
        });
        const idleResult = await idle({ server: side, baseline, tmp });
        const scenarios: ScenarioResult[] = [];
        for (const s of bench.scenarios) {
          scenarios.push(
            await scenario({
              scenario: s,
              server: side,
              baseline,
              calls,
              warmup: callWarmup,
              smoke,
              root,
              tmp,
              log,
            }),
          );
        }
        const options = process.argv.slice(2).filter((a) => a.startsWith('--') && a !== '--results');
        const result: Result = {
          meta: {
            server: server.name,
            machine: machineAtStart,
            date: new Date().toISOString().slice(0, 16).replace('T', ' ').concat(' UTC'),
            commit: measuredCommit,
            command: ['pnpm bench', server.name, ...options].join(' '),
            runs,
            warmup,
            calls,
            callWarmup,
          },
          cold,
          idle: idleResult,
          scenarios,
          coldStartTarget: bench.coldStartTarget,
        };
        process.stdout.write(`${section(result)}\n\n`);
        writeFileSync(join(outDir, `${server.name}.json`), `${JSON.stringify(result, null, 2)}\n`);
        if (values.results) {
          writeSection(join(benchDir, 'RESULTS.md'), result);
          log(`  wrote the ${server.name} table into tooling/bench/RESULTS.md`);
        }
        if (smoke) {
          for (const [row, value] of Object.entries(ratios(result))) {
            if (Number.isFinite(value) && value > 0) continue;
            log(`smoke: ${server.name}: ${row} ratio is ${value}`);
            failed++;
          }
        }
      } catch (error) {
        const said =
          error instanceof NotOnPostgres
            ? error.message
            : error instanceof Error
              ? (error.stack ?? error.message)
              : String(error);
        log(`${server.name}: bench failed: ${pg ? pg.hide(said) : said}`);
        failed++;
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    if (charts) {
      try {
        log('bench charts: packages/charts/bench.ts in fresh processes');
        const machineAtStart = machine();
        const result = benchCharts({ root, processes: smoke ? 1 : 5, runs: smoke ? 3 : 20, log });
        const options = process.argv.slice(2).filter((a) => a.startsWith('--') && a !== '--results');
        const text = chartsSection(result, {
          machine: machineAtStart,
          date: new Date().toISOString().slice(0, 16).replace('T', ' ').concat(' UTC'),
          commit: measuredCommit,
          command: ['pnpm bench', CHARTS, ...options].join(' '),
        });
        process.stdout.write(`${text}\n\n`);
        writeFileSync(join(outDir, `${CHARTS}.json`), `${JSON.stringify(result, null, 2)}\n`);
        if (values.results) {
          replaceSection(join(benchDir, 'RESULTS.md'), CHARTS, text);
          log('  wrote the charts table into tooling/bench/RESULTS.md');
        }
        if (smoke) {
          for (const [row, value] of Object.entries(chartsFigures(result))) {
            if (Number.isFinite(value) && value > 0) continue;
            log(`smoke: charts: ${row} is ${value}`);
            failed++;
          }
        }
      } catch (error) {
        log(`charts: bench failed: ${error instanceof Error ? error.message : String(error)}`);
        failed++;
      }
    }
    log(failed ? `bench: ${failed} failure(s)` : 'bench: done');
    return failed ? 1 : 0;
  }
}

/** One server on PostgreSQL: its section, raw figures and, under --smoke, the count of missing figures. */
async function onPostgres(o: {
  server: Server;
  bench: ServerBench;
  side: Side;
  baseline: Side;
  pg: BenchPostgres;
  machine: string;
  commit: string;
  runs: number;
  warmup: number;
  calls: number;
  callWarmup: number;
  clients: number;
  httpSeconds: number;
  smoke: boolean;
  results: boolean;
  outDir: string;
  tmp: string;
}): Promise<number> {
  const rounds = o.smoke ? 1 : 3;
  const run = await benchOnPostgres({
    name: o.server.name,
    bench: o.bench,
    server: o.side,
    baseline: o.baseline,
    pg: o.pg,
    calls: o.calls,
    warmup: o.callWarmup,
    clients: o.clients,
    seconds: o.httpSeconds,
    rounds,
    smoke: o.smoke,
    root,
    tmp: o.tmp,
    log,
  });
  // The command as given, with the URL's password hidden.
  const options = process.argv
    .slice(2)
    .filter((a) => a.startsWith('--') && a !== '--results')
    .map((a) => o.pg.hide(a));
  const given = process.argv.indexOf('--database-url');
  if (given !== -1 && !options.some((a) => a.startsWith('--database-url=')))
    options.splice(options.indexOf('--database-url') + 1, 0, o.pg.shown);
  const result: PostgresResult = {
    meta: {
      server: o.server.name,
      machine: o.machine,
      date: new Date().toISOString().slice(0, 16).replace('T', ' ').concat(' UTC'),
      commit: o.commit,
      command: ['pnpm bench', o.server.name, ...options].join(' '),
      runs: o.runs,
      warmup: o.warmup,
      calls: o.calls,
      callWarmup: o.callWarmup,
      database: o.pg.shown,
      clients: o.clients,
      seconds: o.httpSeconds,
      rounds,
    },
    run,
  };
  const text = postgresSection(result);
  process.stdout.write(`${text}\n\n`);
  const name = postgresSectionName(o.server.name);
  writeFileSync(join(o.outDir, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  if (o.results) {
    replaceSection(join(benchDir, 'RESULTS.md'), name, text);
    log(`  wrote the ${name} table into tooling/bench/RESULTS.md`);
  }
  let missing = 0;
  if (o.smoke) {
    for (const [row, value] of Object.entries(postgresRatios(result))) {
      if (Number.isFinite(value) && value > 0) continue;
      log(`smoke: ${name}: ${row} is ${value}`);
      missing++;
    }
  }
  return missing;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    log(`bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
