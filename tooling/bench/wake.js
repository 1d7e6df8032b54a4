#!/usr/bin/env node
// node tooling/bench/wake.js [--rounds N]
//
// What a round trip over pipes costs on this machine besides the answer's own work, by how long that work
// takes. A child process answers each line on its stdin after spinning for the microseconds the line asks
// for; the harness reports the p50 of (round trip - work) for each length of work, the lengths taken in turn
// round after round. What that column adds on two CPUs over one is the cost of waking a process whose CPU
// went idle while it waited; where it grows with the work, a tool call whose server works longer pays more
// of it than the echo. Run it once as it is and once under `taskset -c 1` (both processes on one CPU, so a
// round trip does not wait for another CPU to wake) to compare. Diagnostic only; nothing is asserted.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpusAllowed } from './lib/child.js';
import { percentile } from './lib/stats.js';

const WORK_US = [0, 50, 100, 150, 200, 300, 400, 600];
/** Rounds run first and not counted. */
const WARMUP = 50;

/** The child: answer each line after spinning for the microseconds it names. */
function answer() {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const until = process.hrtime.bigint() + BigInt(Number(line) * 1000);
    while (process.hrtime.bigint() < until);
    process.stdout.write(`${line}\n`);
  });
}

async function main() {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '400' }, answer: { type: 'boolean' } },
  });
  if (values.answer) return answer();
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a whole number of 1 or more, not ${values.rounds}`);
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--answer'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  /** @type {((line: string) => void) | null} */
  let waiting = null;
  createInterface({ input: child.stdout }).on('line', (line) => waiting?.(line));
  const trip = (/** @type {number} */ work) =>
    new Promise((resolve) => {
      const start = process.hrtime.bigint();
      waiting = () => resolve(Number(process.hrtime.bigint() - start) / 1000 - work);
      child.stdin.write(`${work}\n`);
    });
  /** @type {Map<number, number[]>} */
  const overhead = new Map(WORK_US.map((work) => [work, []]));
  for (let round = 0; round < WARMUP + rounds; round++) {
    for (const work of WORK_US) {
      const extra = /** @type {number} */ (await trip(work));
      if (round >= WARMUP) overhead.get(work)?.push(extra);
    }
  }
  child.stdin.end();
  const cpus = cpusAllowed() ?? 'unknown';
  const rows = WORK_US.map((work) => {
    const extra = overhead.get(work) ?? [];
    return `| ${work} | ${percentile(extra, 50).toFixed(0)} | ${percentile(extra, 90).toFixed(0)} |`;
  });
  process.stdout.write(
    [
      `Round trips over pipes to a child that spins for the work, ${rounds} per length after ${WARMUP} warm-up rounds, on CPUs ${cpus}, Node ${process.version}.`,
      '',
      '| work (µs) | round trip - work, p50 (µs) | p90 (µs) |',
      '| ---: | ---: | ---: |',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
