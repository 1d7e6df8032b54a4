#!/usr/bin/env node
// conformance [server…]: the official MCP conformance suite (@modelcontextprotocol/conformance) against
// each built server bin over Streamable HTTP. Servers are the servers/*/ folders with a dist/index.cjs
// (default: all of them). Each one is started on a free port with a throwaway data directory, runs the
// scenarios below (those that need no fixture of their own), and is stopped. Exits 1 if any fails.
//
// The conformance CLI declares Node 22 for one import (`fs.globSync`, which only its tier-check command
// calls). conformance-node20.mjs supplies that import on Node 20, so this step needs no second Node.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
];

// A scenario that may fail while the server does not declare the capability it tests: it is reported as
// skipped, with its failure. Once the server declares the capability, the scenario must pass.
const NEEDS_CAPABILITY = {
  'logging-set-level': { capability: 'logging', reason: 'expected to fail until core declares logging' },
};

const SCENARIO_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
// Each scenario is a CLI process that spends most of its time loading: run one per CPU at a time.
const PARALLEL = availableParallelism();

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const conformanceDir = dirname(require.resolve('@modelcontextprotocol/conformance/package.json'));
const cli = join(
  conformanceDir,
  JSON.parse(readFileSync(join(conformanceDir, 'package.json'), 'utf8')).bin.conformance,
);
const shim = join(here, 'conformance-node20.mjs');

const built = readdirSync(join(root, 'servers'))
  .filter((name) => existsSync(join(root, 'servers', name, 'dist', 'index.cjs')))
  .sort();
const wanted = process.argv.slice(2);
const missing = wanted.filter((name) => !built.includes(name));
if (missing.length > 0) {
  console.error(
    `conformance: no built server ${missing.join(', ')} (built: ${built.join(', ') || 'none'}; run pnpm build)`,
  );
  process.exit(2);
}
const servers = wanted.length > 0 ? wanted : built;
if (servers.length === 0) {
  console.error('conformance: no server has a dist/index.cjs; run pnpm build first');
  process.exit(1);
}

/** The environment without SHIPYARD_* variables, so the caller's settings (a token, say) do not apply. */
function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SHIPYARD_')));
}

/** Start a server bin over HTTP on a free port; resolves with its URL once it logs that it listens. */
function startServer(name, dataDir) {
  const bin = join(root, 'servers', name, 'dist', 'index.cjs');
  const args = [bin, '--transport', 'http', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir];
  const child = spawn(process.execPath, [...args, '--log-level', 'info'], {
    env: cleanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const server = { child, stderr: '', exited: new Promise((resolve) => child.once('exit', resolve)) };
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('did not report its URL in time')), START_TIMEOUT_MS);
    child.stderr.on('data', (chunk) => {
      server.stderr += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(server.stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    server.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with code ${code} before listening`));
    });
  });
  return { server, url };
}

async function stopServer(server) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await server.exited;
  clearTimeout(timer);
}

/** The capabilities the server declares in its initialize answer (as JSON or in an SSE stream). */
async function capabilitiesOf(url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'conformance', version: '1' },
      },
    }),
  });
  const text = await response.text();
  const sse = response.headers.get('content-type')?.includes('text/event-stream');
  const messages = sse
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:') && line.slice(5).trim())
        .map((line) => line.slice(5))
    : [text];
  const session = response.headers.get('mcp-session-id');
  if (session) await fetch(url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session } });
  const answer = messages.map((message) => JSON.parse(message)).find((message) => message.id === 1);
  if (!answer?.result) throw new Error(`initialize failed: ${text}`);
  return answer.result.capabilities ?? {};
}

/** Run one scenario with the conformance CLI; resolves with its failures (none when it passed). */
function runScenario(url, scenario, outDir) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', shim, cli, 'server', '--url', url, '--scenario', scenario, '-o', outDir],
      {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const checks = readChecks(outDir);
      const failures = (checks ?? [])
        .filter((check) => check.status === 'FAILURE')
        .map((check) => `${check.id}: ${check.errorMessage ?? check.description}`);
      if (failures.length === 0 && (code !== 0 || !checks)) {
        const why = signal ? `timed out after ${SCENARIO_TIMEOUT_MS / 1000} s` : `exited with code ${code}`;
        failures.push(`the conformance CLI ${why}\n${output.trim()}`);
      }
      resolve(failures);
    });
  });
}

/** Run every scenario against one server, PARALLEL at a time; resolves with their failures by name. */
async function runScenarios(url, outDir) {
  const failures = new Map();
  const queue = [...SCENARIOS];
  const worker = async () => {
    for (let scenario = queue.shift(); scenario; scenario = queue.shift()) {
      failures.set(scenario, await runScenario(url, scenario, join(outDir, scenario)));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return failures;
}

/** The checks.json the CLI wrote under outDir (in a folder named after the scenario and the time). */
function readChecks(outDir) {
  const runs = existsSync(outDir) ? readdirSync(outDir) : [];
  const file = runs.map((run) => join(outDir, run, 'checks.json')).find((path) => existsSync(path));
  return file ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

const indent = (text) => text.replace(/\n/g, '\n      ');

const total = { passed: 0, failed: 0, skipped: 0 };
const work = mkdtempSync(join(tmpdir(), 'shipyard-conformance-'));
try {
  for (const name of servers) {
    const started = performance.now();
    const count = { passed: 0, failed: 0, skipped: 0 };
    const { server, url } = startServer(name, join(work, name, 'data'));
    try {
      const base = await url;
      console.log(`${name}: ${base}`);
      const capabilities = await capabilitiesOf(base);
      const results = await runScenarios(base, join(work, name));
      for (const scenario of SCENARIOS) {
        const failures = results.get(scenario);
        const excuse = NEEDS_CAPABILITY[scenario];
        if (failures.length === 0) {
          count.passed++;
          console.log(`  ok    ${scenario}`);
        } else if (excuse && !(excuse.capability in capabilities)) {
          count.skipped++;
          console.log(`  skip  ${scenario}: ${excuse.reason} (no \`${excuse.capability}\` capability)`);
          for (const failure of failures) console.log(`      ${indent(failure)}`);
        } else {
          count.failed++;
          console.log(`  FAIL  ${scenario}`);
          for (const failure of failures) console.log(`      ${indent(failure)}`);
        }
      }
    } catch (error) {
      count.failed++;
      console.log(`  FAIL  ${name} could not be tested: ${error.message}`);
      if (server.stderr.trim()) console.log(`      ${indent(server.stderr.trim())}`);
    } finally {
      await stopServer(server);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${name}: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped in ${seconds} s`,
    );
    for (const key of Object.keys(total)) total[key] += count[key];
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`conformance: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
