#!/usr/bin/env node
// node tooling/bench/probe.js [server] [--runs N]            where a cold start goes (timestamps)
// node tooling/bench/probe.js [server] --profile [--calls N]  where a tool call goes (CPU profile)
// node tooling/bench/probe.js [server] --phases [--calls N]   a tool call's time in the process, by phase
//
// Cold start: runs instrumented copies (in a temp dir; the real files are not touched) that print a timestamp
// at points of interest, alternating with the same instrumentation in the baseline (unbundled, and bundled
// by esbuild into one ES module file) and an empty ESM script (the floor: Node itself). Prints the median
// time from spawn to each point. The server's copy saves its own code cache in the warm-up rounds, so the
// points are those of a start with the cache. Diagnostic only: the numbers to compare are run.js's ratios.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Child, childEnv } from './lib/child.js';
import { median } from './lib/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

/** An expression that writes "BENCH_MARK <name> <epoch ms>" to stderr. @param {string} name */
const markExpr = (name) =>
  `process.stderr.write("BENCH_MARK ${name} "+(performance.timeOrigin+performance.now())+"\\n")`;
/** @param {string} name */
const mark = (name) => `${markExpr(name)};`;

/** Insert a mark as the first statement of a module (after a shebang): it runs once its imports are done. */
function markTop(/** @type {string} */ source, /** @type {string} */ name) {
  if (source.startsWith('#!')) {
    const eol = source.indexOf('\n') + 1;
    return source.slice(0, eol) + mark(name) + source.slice(eol);
  }
  return mark(name) + source;
}

/** Insert `text` before the last occurrence of `needle`; unchanged (and reported) if it is not there. */
function insertBefore(
  /** @type {string} */ source,
  /** @type {string} */ needle,
  /** @type {string} */ text,
) {
  const at = source.lastIndexOf(needle);
  if (at === -1) {
    process.stderr.write(`probe: no "${needle}" in the bundle; that mark is skipped\n`);
    return source;
  }
  return source.slice(0, at) + text + source.slice(at);
}

/** Replace the first `find` with `replacement`; unchanged (and reported) if it is not there. */
function patch(/** @type {string} */ source, /** @type {string} */ find, /** @type {string} */ replacement) {
  if (!source.includes(find)) {
    process.stderr.write(`probe: no "${find}" in the bundle; those marks are skipped\n`);
    return source;
  }
  return source.replace(find, () => replacement);
}

/**
 * Instrumented copy of servers/<name>: dist copied and patched; drizzle and node_modules linked. The marks
 * inside runServer match @shipyard/core's code as bundled; a mark whose anchor is missing is skipped.
 */
function instrumentServer(/** @type {string} */ name, /** @type {string} */ tmp) {
  const pkgDir = join(root, 'servers', name);
  const copy = join(tmp, name);
  mkdirSync(copy);
  cpSync(join(pkgDir, 'dist'), join(copy, 'dist'), { recursive: true });
  cpSync(join(pkgDir, 'package.json'), join(copy, 'package.json'));
  for (const linked of ['drizzle', 'node_modules']) symlinkSync(join(pkgDir, linked), join(copy, linked));
  const loader = join(copy, 'dist', 'index.cjs');
  const loaderSource = markTop(readFileSync(loader, 'utf8'), 'loader-starts');
  writeFileSync(loader, insertBefore(loaderSource, 'const bundle = {', mark('bundle-compiled')));
  const index = join(copy, 'dist', 'bundle.cjs');
  let source = readFileSync(index, 'utf8');
  source = markTop(source, 'bin-body-starts');
  source = insertBefore(source, 'await runServer(', mark('runServer-called'));
  source = insertBefore(source, 'runtime=new Runtime(definition', mark('factory-returned'));
  source = patch(
    source,
    'runtime.connect(new StdioServerTransport)',
    `runtime.connect((${markExpr('runtime-built')},new StdioServerTransport))`,
  );
  // The example's openExampleDatabase (other servers that open @shipyard/db the same way match too).
  source = patch(
    source,
    'return migrate(database,migrationsFolder),database',
    `return ${markExpr('database-opened')},migrate(database,migrationsFolder),${markExpr('migrated')},database`,
  );
  writeFileSync(index, source);
  return loader;
}

/** The baseline's source with marks after its imports and before connect. */
function instrumentedBaselineSource() {
  let source = readFileSync(join(here, 'baseline', 'server.js'), 'utf8');
  source = markTop(source, 'bin-body-starts');
  return insertBefore(source, 'await server.connect(', mark('connect-called'));
}

/** Unbundled: imports rewritten to absolute URLs so the copy can live in the temp dir. */
function instrumentBaseline(/** @type {string} */ tmp) {
  const source = instrumentedBaselineSource().replace(
    /from '([^']+)'/g,
    (_, spec) => `from '${import.meta.resolve(spec)}'`,
  );
  const file = join(tmp, 'baseline.mjs');
  writeFileSync(file, source);
  return file;
}

/** Bundled into one ES module file (the baseline awaits at top level), with @shipyard/build's esbuild. */
async function bundleBaseline(/** @type {string} */ tmp) {
  let esbuild;
  try {
    esbuild = createRequire(join(root, 'tooling', 'build', 'package.json'))('esbuild');
  } catch {
    process.stderr.write('probe: esbuild not found via tooling/build; skipping the bundled baseline\n');
    return null;
  }
  const outfile = join(tmp, 'baseline-bundled.mjs');
  await esbuild.build({
    stdin: { contents: instrumentedBaselineSource(), resolveDir: join(here, 'baseline'), loader: 'js' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    banner: {
      js: "import { createRequire as __shipyardRequire } from 'node:module'; const require = __shipyardRequire(import.meta.url);",
    },
  });
  writeFileSync(outfile, markTop(readFileSync(outfile, 'utf8'), 'bundle-evaluation-starts'));
  return outfile;
}

/** One spawn: ms from spawn to each mark and to the parsed initialize response. */
async function once(/** @type {string} */ script, /** @type {string[]} */ args) {
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = new Child(script, args, childEnv());
  /** @type {Record<string, number>} */
  const marks = {};
  try {
    const response = await child.initialize();
    if (response.error) throw new Error(JSON.stringify(response.error));
    marks['initialize-result'] = Number(child.lastResponseAt - child.spawnedAt) / 1e6;
  } finally {
    await child.stop();
  }
  for (const m of child.stderrTail.matchAll(/BENCH_MARK (\S+) ([\d.]+)/g))
    marks[m[1]] = Number(m[2]) - spawnedAt;
  return marks;
}

/**
 * Self and inclusive CPU time per function from a .cpuprofile, in microseconds per call.
 * @param {string} file
 * @param {number} calls
 * @param {number} top
 * @param {number} fromUs  monotonic µs; samples before it are ignored
 */
function summarizeProfile(file, calls, top, fromUs) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Map<number, any>} */
  const byId = new Map(profile.nodes.map((/** @type {any} */ n) => [n.id, n]));
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** @type {Map<number, number>} */
  const sampled = new Map();
  // Sample times are V8 monotonic µs, the same clock as process.hrtime here (CLOCK_MONOTONIC); keep only
  // samples taken after the measured calls began, so start-up is not divided into the per-call numbers.
  let at = profile.startTime;
  profile.samples.forEach((/** @type {number} */ id, /** @type {number} */ i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= fromUs) sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const key = (/** @type {any} */ n) => {
    const url = n.callFrame.url.replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '');
    return `${n.callFrame.functionName || '(anonymous)'} ${url.replace(/^file:\/\/.*\//, '')}:${n.callFrame.lineNumber + 1}`;
  };
  /** @type {Map<string, number>} */
  const self = new Map();
  /** @type {Map<string, number>} */
  const inclusive = new Map();
  for (const [id, us] of sampled) {
    const k = key(byId.get(id));
    self.set(k, (self.get(k) ?? 0) + us);
    const seen = new Set();
    for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parent.get(at)) {
      const kk = key(byId.get(at));
      if (seen.has(kk)) continue;
      seen.add(kk);
      inclusive.set(kk, (inclusive.get(kk) ?? 0) + us);
    }
  }
  const rows = (/** @type {Map<string, number>} */ m) =>
    [...m]
      .filter(([k]) => !k.startsWith('(root)') && !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `| ${(us / calls).toFixed(1)} | \`${k}\` |`);
  return [
    '| self µs/call | function |',
    '| ---: | --- |',
    ...rows(self),
    '',
    '| inclusive µs/call | function |',
    '| ---: | --- |',
    ...rows(inclusive),
  ].join('\n');
}

/**
 * Both sides under --cpu-prof, the cheap tool and echo called alternately; per-call CPU by function.
 * Start-up is excluded from the per-call division only approximately (it is in the profile too), so
 * look at the call-path frames, not at module loading.
 */
async function profileCalls(
  /** @type {string} */ name,
  /** @type {number} */ calls,
  /** @type {string} */ tmp,
) {
  const pkg = JSON.parse(readFileSync(join(root, 'servers', name, 'package.json'), 'utf8'));
  const bin = join(root, 'servers', name, 'dist', 'index.cjs');
  const sides = [
    {
      label: name,
      script: bin,
      args: ['--data-dir', mkdtempSync(join(tmp, 'data-'))],
      dir: join(tmp, 'prof-server'),
    },
    {
      label: 'baseline',
      script: join(here, 'baseline', 'server.js'),
      args: [],
      dir: join(tmp, 'prof-baseline'),
    },
  ];
  const children = sides.map(
    (s) =>
      new Child(s.script, s.args, childEnv(), [
        '--cpu-prof',
        `--cpu-prof-dir=${s.dir}`,
        '--cpu-prof-interval=100',
      ]),
  );
  for (const child of children) {
    await child.initialize();
    child.notify('notifications/initialized');
  }
  const list = await children[0].request('tools/list', {});
  const tool =
    pkg.shipyard?.bench?.tool ??
    list.result.tools.find((/** @type {any} */ t) => t.annotations?.readOnlyHint)?.name;
  // shipyard.bench.setup: the calls run.js makes once before measuring (e.g. create the project tickets go
  // into); without them the profiled calls would all take the error path.
  for (const step of pkg.shipyard?.bench?.setup ?? []) {
    const done = await children[0].request('tools/call', {
      name: step.tool,
      arguments: step.arguments ?? {},
    });
    if (done.error || done.result?.isError)
      throw new Error(`setup ${step.tool} failed: ${JSON.stringify(done)}`);
  }
  const callArgs = [
    { name: tool, arguments: pkg.shipyard?.bench?.arguments ?? {} },
    { name: 'echo', arguments: { text: 'hello' } },
  ];
  for (let i = 0; i < 100; i++) {
    for (let c = 0; c < 2; c++) await children[c].request('tools/call', callArgs[c]);
  }
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  for (let i = 0; i < calls; i++) {
    for (let c = 0; c < 2; c++) await children[c].request('tools/call', callArgs[c]);
  }
  await Promise.all(children.map((c) => c.stop()));
  const out = [
    `CPU profile of ${calls} alternating calls (\`${tool}\` vs \`echo\`) after 100 warm-up calls, 100 µs ` +
      'sampling; samples before the measured calls are dropped. Times are sampled wall time on the main ' +
      'thread, so time a process spends descheduled can land in the frame it was in (e.g. the stdout write).',
    '',
  ];
  sides.forEach((s) => {
    const file = join(s.dir, readdirSync(s.dir)[0]);
    out.push(`### ${s.label}`, '', summarizeProfile(file, calls, 25, fromUs), '');
  });
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * Loaded with `node --require` into both sides by `--phases`. Per request: from stdin's 'data' event to the
 * first stdout write after it, split into SQLite's BEGIN and COMMIT of each outermost better-sqlite3
 * transaction, the transactions' bodies, and the rest (reading the line, the protocol, validation, the
 * answer). To time BEGIN and COMMIT apart, an outermost transaction runs with the statements better-sqlite3's
 * own runs (BEGIN of its mode, COMMIT, ROLLBACK on a throw) and its refusal of a body that returns a promise;
 * nested ones go to better-sqlite3's savepoints. Rows (µs) are written to SHIPYARD_PROBE_OUT at exit.
 */
const PHASES_PRELOAD = `'use strict';
const { writeFileSync } = require('node:fs');
const now = process.hrtime.bigint;
const rows = [];
let call = null;
const emit = process.stdin.emit;
process.stdin.emit = function (event, ...rest) {
  if (event === 'data') call = { start: now(), begin: 0n, body: 0n, commit: 0n };
  return emit.call(this, event, ...rest);
};
const write = process.stdout.write;
process.stdout.write = function (...args) {
  if (call) {
    const us = (ns) => Number(ns) / 1e3;
    const total = now() - call.start;
    rows.push([us(call.begin), us(call.body), us(call.commit), us(total - call.begin - call.body - call.commit), us(total)]);
    call = null;
  }
  return write.apply(this, args);
};
let Database = null;
try {
  Database = require(require.resolve('better-sqlite3', { paths: [process.env.SHIPYARD_PROBE_PACKAGE || process.cwd()] }));
} catch {}
if (Database) {
  const transaction = Database.prototype.transaction;
  const statements = new WeakMap();
  Database.prototype.transaction = function (fn) {
    const db = this;
    const own = transaction.call(this, fn);
    const timed = (mode, nested) =>
      function (...args) {
        if (db.inTransaction || !call) return nested.apply(this, args);
        if (!statements.has(db)) statements.set(db, {});
        const cache = statements.get(db);
        cache[mode] ??= { begin: db.prepare('BEGIN ' + mode), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
        const { begin, commit, rollback } = cache[mode];
        const at = call;
        let t = now();
        begin.run();
        at.begin += now() - t;
        t = now();
        try {
          const result = fn.apply(this, args);
          if (result && typeof result.then === 'function') {
            throw new TypeError('Transaction function cannot return a promise');
          }
          at.body += now() - t;
          t = now();
          commit.run();
          at.commit += now() - t;
          return result;
        } catch (error) {
          if (db.inTransaction) rollback.run();
          throw error;
        }
      };
    const modes = { default: 'DEFERRED', deferred: 'DEFERRED', immediate: 'IMMEDIATE', exclusive: 'EXCLUSIVE' };
    const properties = { database: { value: db, enumerable: true } };
    for (const [name, mode] of Object.entries(modes)) properties[name] = { value: timed(mode, own[name]) };
    for (const { value } of Object.values(properties)) if (value !== db) Object.defineProperties(value, properties);
    return properties.default.value;
  };
}
process.on('exit', () => writeFileSync(process.env.SHIPYARD_PROBE_OUT, JSON.stringify(rows)));
`;

/**
 * Both sides with PHASES_PRELOAD, the cheap tool and echo called alternately: the p50 of each phase of a
 * call inside the process, and of the whole call as the client sees it (the difference is the pipes and the
 * scheduling between the processes).
 */
async function phaseCalls(
  /** @type {string} */ name,
  /** @type {number} */ calls,
  /** @type {string} */ tmp,
) {
  const pkgDir = join(root, 'servers', name);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const preload = join(tmp, 'phases.cjs');
  writeFileSync(preload, PHASES_PRELOAD);
  const sides = [
    {
      label: name,
      script: join(pkgDir, 'dist', 'index.cjs'),
      args: ['--data-dir', mkdtempSync(join(tmp, 'data-'))],
    },
    { label: 'baseline', script: join(here, 'baseline', 'server.js'), args: [] },
  ].map((side, i) => {
    const out = join(tmp, `phases-${i}.json`);
    const env = { ...childEnv(), SHIPYARD_PROBE_OUT: out, SHIPYARD_PROBE_PACKAGE: pkgDir };
    return { ...side, out, child: new Child(side.script, side.args, env, ['--require', preload]) };
  });
  for (const { child } of sides) {
    await child.initialize();
    child.notify('notifications/initialized');
  }
  for (const step of pkg.shipyard?.bench?.setup ?? []) {
    const done = await sides[0].child.request('tools/call', {
      name: step.tool,
      arguments: step.arguments ?? {},
    });
    if (done.error || done.result?.isError)
      throw new Error(`setup ${step.tool} failed: ${JSON.stringify(done)}`);
  }
  const list = await sides[0].child.request('tools/list', {});
  const tool =
    pkg.shipyard?.bench?.tool ??
    list.result.tools.find((/** @type {any} */ t) => t.annotations?.readOnlyHint)?.name;
  const callArgs = [
    { name: tool, arguments: pkg.shipyard?.bench?.arguments ?? {} },
    { name: 'echo', arguments: { text: 'hello' } },
  ];
  /** @type {number[][]} */
  const seen = [[], []];
  for (let i = 0; i < 200 + calls; i++) {
    for (let c = 0; c < 2; c++) {
      const start = process.hrtime.bigint();
      const response = await sides[c].child.request('tools/call', callArgs[c]);
      if (response.error || response.result?.isError)
        throw new Error(`${callArgs[c].name} failed: ${JSON.stringify(response)}`);
      if (i >= 200) seen[c].push(Number(sides[c].child.lastResponseAt - start) / 1e3);
    }
  }
  await Promise.all(sides.map(({ child }) => child.stop()));
  const lines = [
    `p50 µs per call of ${calls} alternating calls (\`${tool}\` vs \`echo\`) after 200 warm-up calls, ` +
      `Node ${process.version}. In the process: from stdin's data to the answer's write, split into SQLite's ` +
      "BEGIN and COMMIT (each outermost transaction), the transactions' bodies and the rest; each column is " +
      'its own p50, so they need not add up.',
    '',
    '| side | BEGIN | transaction bodies | COMMIT | the rest | in the process | as the client sees it |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  sides.forEach((side, c) => {
    const rows = JSON.parse(readFileSync(side.out, 'utf8')).slice(-calls);
    const p50 = (/** @type {number[]} */ values) => median(values).toFixed(1);
    const column = (/** @type {number} */ k) => p50(rows.map((/** @type {number[]} */ row) => row[k]));
    lines.push(
      `| ${side.label} | ${column(0)} | ${column(1)} | ${column(2)} | ${column(3)} | ${column(4)} | ${p50(seen[c])} |`,
    );
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '15' },
      profile: { type: 'boolean', default: false },
      phases: { type: 'boolean', default: false },
      calls: { type: 'string', default: '3000' },
    },
  });
  const name = (positionals[0] ?? 'example').replace(/^@shipyard\//, '');
  const runs = Number(values.runs);
  const tmp = mkdtempSync(join(tmpdir(), 'shipyard-probe-'));
  if (values.profile || values.phases) {
    try {
      await (values.phases ? phaseCalls : profileCalls)(name, Number(values.calls), tmp);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return;
  }
  try {
    const floor = join(tmp, 'floor.mjs');
    writeFileSync(
      floor,
      `${mark('bin-body-starts')}process.stdin.once('data',()=>{process.stdout.write('{"jsonrpc":"2.0","id":0,"result":{}}\\n');process.exit(0)});`,
    );
    const bundled = await bundleBaseline(tmp);
    const instrumented = instrumentServer(name, tmp);
    const existing = mkdtempSync(join(tmp, 'existing-'));
    /** @type {Record<string, {script: string, args: () => string[]}>} */
    const sides = {
      'node floor (empty ESM script)': { script: floor, args: () => [] },
      'baseline, unbundled (as benched)': { script: instrumentBaseline(tmp), args: () => [] },
      ...(bundled ? { 'baseline, bundled with esbuild': { script: bundled, args: () => [] } } : {}),
      [`${name} (dist bundle, fresh data dir)`]: {
        script: instrumented,
        args: () => ['--data-dir', mkdtempSync(join(tmp, 'data-'))],
      },
      [`${name} (dist bundle, existing data dir)`]: {
        script: instrumented,
        args: () => ['--data-dir', existing],
      },
    };
    /** @type {Record<string, Record<string, number[]>>} */
    const samples = {};
    for (let i = 0; i < runs + 2; i++) {
      for (const [label, side] of Object.entries(sides)) {
        const marks = await once(side.script, side.args());
        if (i < 2) continue; // warm-up
        samples[label] ??= {};
        for (const [k, v] of Object.entries(marks)) {
          samples[label][k] ??= [];
          samples[label][k].push(v);
        }
      }
    }
    const lines = [
      `Median ms from spawn to each point, ${runs} runs per side (alternating, after 2 warm-up rounds), ` +
        `Node ${process.version}. "since previous" is the difference of the medians.`,
      '',
      '| side | point | ms from spawn | since previous |',
      '| --- | --- | ---: | ---: |',
    ];
    for (const [label, marks] of Object.entries(samples)) {
      const points = Object.entries(marks)
        .map(([k, v]) => /** @type {[string, number]} */ ([k, median(v)]))
        .sort((a, b) => a[1] - b[1]);
      let previous = 0;
      for (const [k, ms] of points) {
        lines.push(`| ${label} | ${k} | ${ms.toFixed(1)} | ${(ms - previous).toFixed(1)} |`);
        previous = ms;
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
