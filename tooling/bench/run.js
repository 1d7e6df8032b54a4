#!/usr/bin/env node
// pnpm bench [server…] [--runs N] [--calls N] [--warmup N] [--no-build] [--one-cpu] [--smoke]
// Benchmarks each server's built bin against a bare SDK one-tool server in the same run. See README.md.
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
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpusAllowed } from './lib/child.js';
import { coldStart, steadyState } from './lib/measure.js';
import { markdown, ratios, targetsFor } from './lib/report.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const baselineScript = join(here, 'baseline', 'server.js');

const HELP = `Usage: pnpm bench [server…] [options]

Benchmarks servers/<server>/ bins against tooling/bench/baseline/server.js (a bare SDK one-tool server).
With no server names: every servers/*/ package that has a built dist/index.cjs.

Options:
  --runs N         cold starts per side (default 21, at least 15 recommended)
  --warmup N       discarded warm-up rounds before the cold starts (default 2)
  --calls N        tool calls per side in the latency run (default 500)
  --call-warmup N  discarded warm-up calls per side (default 20)
  --no-build       do not run turbo build first (the bins must already be built)
  --one-cpu        run the harness and both servers on one CPU (Linux, with taskset), so that a round trip
                   does not wait for another CPU to wake from idle (on some VMs that costs more the longer
                   the call took)
  --smoke          a quick harness self-check: runs 3, calls 20, no build, results in results/smoke/
  -h, --help       this text

Results: markdown on stdout and in tooling/bench/results/<server>.md, raw samples in <server>.json.
Progress and build output go to stderr. Exits 0 whether or not targets are met; 1 if the harness failed.
`;

/** @param {string | undefined} value @param {number} fallback @param {string} name */
function count(value, fallback, name) {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} wants a whole number, got ${value}`);
  return n;
}

/** @param {string} s */
const log = (s) => process.stderr.write(`${s}\n`);

/**
 * Resolve the servers to bench: names as given (`example` or `@shipyard/example`), else every built one.
 * @param {string[]} names
 */
function findServers(names) {
  const dir = join(root, 'servers');
  const all = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'package.json')))
        .map((d) => d.name)
    : [];
  const wanted = names.length
    ? names.map((n) => {
        const name = n.replace(/^@shipyard\//, '').replace(/^servers\//, '');
        if (!all.includes(name)) throw new Error(`no package servers/${name} (have: ${all.join(', ')})`);
        return name;
      })
    : all.filter((name) => existsSync(join(dir, name, 'dist', 'index.cjs')));
  return wanted.map((name) => {
    const pkgDir = join(dir, name);
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
    const bin = resolve(pkgDir, bins[0] ?? 'dist/index.cjs');
    return { name, pkgName: pkg.name ?? `@shipyard/${name}`, pkgDir, bin, bench: pkg.shipyard?.bench };
  });
}

/** @param {string[]} pkgNames */
function build(pkgNames) {
  const filters = pkgNames.map((p) => `--filter=${p}...`);
  log(`> pnpm exec turbo run build ${filters.join(' ')}`);
  const result = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', ...filters], {
    cwd: root,
    stdio: ['ignore', process.stderr, process.stderr],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  if (result.status !== 0) throw new Error(`build failed (exit ${result.status ?? result.signal})`);
}

function machine() {
  const cpu = cpus();
  return {
    cpusAllowed: cpusAllowed(),
    cpu: cpu[0]?.model.trim() ?? 'unknown CPU',
    cores: cpu.length,
    memGiB: (totalmem() / 1024 ** 3).toFixed(1),
    os: `${type()} ${release()}`,
    loadavg: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

function sdkVersion() {
  try {
    const p = join(here, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json');
    return JSON.parse(readFileSync(p, 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/** Sanity checks for --smoke: every number the report prints must exist. @param {any} result */
function smokeCheck(result) {
  const problems = [];
  for (const [key, value] of Object.entries(ratios(result))) {
    if (key.startsWith('call') && !result.steady.latency) continue; // no cheap tool: reported, not a failure
    if (key === 'callCpu') continue; // 10 ms ticks: 20 smoke calls can round to zero
    if (key.endsWith('Rss') && process.platform !== 'linux') continue; // /proc only
    if (!Number.isFinite(value) || value <= 0) problems.push(`ratio ${key} is ${value}`);
  }
  if (result.steady.footprint.server.tools.length === 0) problems.push('server lists no tools');
  return problems;
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string' },
      warmup: { type: 'string' },
      calls: { type: 'string' },
      'call-warmup': { type: 'string' },
      'no-build': { type: 'boolean', default: false },
      'one-cpu': { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values['one-cpu'] && process.env.SHIPYARD_BENCH_ONE_CPU === undefined) {
    // Again under taskset, on the last CPU this process may use; children inherit it. The variable marks
    // the run under taskset, which goes on below.
    const cpu = cpusAllowed()?.split(/[,-]/).at(-1);
    if (!cpu) throw new Error('--one-cpu: the CPUs this process may use are unknown (/proc/self/status)');
    const again = spawnSync(
      'taskset',
      ['-c', cpu, process.execPath, ...process.execArgv, ...process.argv.slice(1)],
      { stdio: 'inherit', env: { ...process.env, SHIPYARD_BENCH_ONE_CPU: cpu } },
    );
    if (again.error) throw new Error(`--one-cpu needs taskset (util-linux): ${again.error.message}`);
    if (again.signal) throw new Error(`the run under taskset ended on ${again.signal}`);
    return again.status ?? 1;
  }
  const smoke = values.smoke;
  const runs = count(values.runs, smoke ? 3 : 21, 'runs');
  const warmup = count(values.warmup, smoke ? 1 : 2, 'warmup');
  const calls = count(values.calls, smoke ? 20 : 500, 'calls');
  const callWarmup = count(values['call-warmup'], smoke ? 5 : 20, 'call-warmup');
  if (runs < 1 || calls < 1) throw new Error('--runs and --calls must be at least 1');
  if (!smoke && runs < 15) log(`note: --runs ${runs} is below 15; medians will be noisy`);

  const servers = findServers(positionals);
  if (servers.length === 0) {
    throw new Error('no built server found (servers/*/dist/index.cjs); run `pnpm build` or name a server');
  }
  if (!smoke && !values['no-build']) build(servers.map((s) => s.pkgName));
  if (!existsSync(join(here, 'node_modules', '@modelcontextprotocol', 'sdk'))) {
    throw new Error('the baseline needs its dependencies: run `pnpm install` from the repository root');
  }

  const outDir = join(here, 'results', ...(smoke ? ['smoke'] : []));
  mkdirSync(outDir, { recursive: true });
  const started = Date.now();
  let failed = 0;
  for (const server of servers) {
    if (!existsSync(server.bin)) {
      log(`${server.name}: ${relative(root, server.bin)} is missing; build it first`);
      failed++;
      continue;
    }
    const tmp = mkdtempSync(join(tmpdir(), `shipyard-bench-${server.name}-`));
    try {
      log(`bench ${server.name}: ${relative(root, server.bin)} vs ${relative(root, baselineScript)}`);
      const serverSide = { script: server.bin, args: (/** @type {string} */ d) => ['--data-dir', d] };
      const baselineSide = { script: baselineScript, args: () => [] };
      // The bin's V8 code cache (see tooling/build/loader.cjs): removed, it is the first start after an install.
      const codeCache = join(dirname(server.bin), 'bundle.cjs.cache');
      const firstStartSide = { ...serverSide, prepare: () => rmSync(codeCache, { force: true }) };
      const meta = {
        server: server.name,
        package: server.pkgName,
        bin: relative(root, server.bin),
        baseline: relative(root, baselineScript),
        sdkVersion: sdkVersion(),
        machine: machine(),
        node: process.version,
        date: new Date().toISOString(),
        runs,
        warmup,
        calls,
        callWarmup,
        smoke,
        targets: targetsFor(server.bench),
      };
      const steady = await steadyState({
        server: serverSide,
        baseline: baselineSide,
        calls,
        callWarmup,
        idleMs: 500,
        tmp,
        configuredTool: server.bench,
        log,
      });
      const cold = await coldStart({
        server: serverSide,
        baseline: baselineSide,
        firstStart: firstStartSide,
        runs,
        warmup,
        tmp,
        log,
      });
      const result = { meta, cold, steady };
      const md = markdown(result);
      process.stdout.write(`${md}\n`);
      writeFileSync(join(outDir, `${server.name}.md`), md);
      writeFileSync(
        join(outDir, `${server.name}.json`),
        `${JSON.stringify({ ...result, ratios: ratios(result) }, null, 2)}\n`,
      );
      log(`wrote ${relative(root, join(outDir, `${server.name}.md`))} and .json`);
      if (smoke) {
        const problems = smokeCheck(result);
        for (const p of problems) log(`smoke: ${server.name}: ${p}`);
        if (problems.length) failed++;
      }
    } catch (error) {
      log(`${server.name}: bench failed: ${error instanceof Error ? error.message : String(error)}`);
      failed++;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(`${smoke ? 'smoke' : 'bench'} ${failed ? `FAILED for ${failed} server(s)` : 'done'} in ${seconds} s`);
  return failed ? 1 : 0;
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
