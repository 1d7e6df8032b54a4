// A spawned MCP server spoken to with raw newline-delimited JSON-RPC over its stdin/stdout.
// No SDK client on purpose: the harness should cost the same (and little) for both sides.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const PROTOCOL_VERSION = '2025-06-18';

/** The initialize request the bench sends first, identical for both sides. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'shipyard-bench', version: '0.0.0' },
  },
};

/** The CPUs this process may run on (Linux; children inherit them), e.g. `1` under `taskset -c 1`; else null. */
export function cpusAllowed() {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * The environment every child gets: ours minus NODE_EXTRA_CA_CERTS, which this sandbox sets and which makes
 * every Node start read a CA bundle (~30 ms). Removed for both sides alike.
 * @returns {NodeJS.ProcessEnv}
 */
export function childEnv() {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/**
 * @typedef {object} Target
 * @property {string} label      'server' or 'baseline'
 * @property {string} script     absolute path of the JS file node runs
 * @property {(dataDir?: string) => string[]} args  arguments after the script
 */

export class Child {
  /**
   * @param {string} script
   * @param {string[]} args
   * @param {NodeJS.ProcessEnv} env
   * @param {string[]} [nodeArgs]  flags for node itself (diagnostics such as --cpu-prof)
   */
  constructor(script, args, env, nodeArgs = []) {
    /** @type {Map<number, {resolve: (m: any) => void, reject: (e: Error) => void, timer: NodeJS.Timeout}>} */
    this.pending = new Map();
    this.nextId = 1;
    this.buffer = '';
    this.stderrTail = '';
    this.exited = false;
    /** @type {number | null} */
    this.exitCode = null;
    /** hrtime (ns) of the last response line parsed; read it right after awaiting a request. */
    this.lastResponseAt = 0n;
    this.spawnedAt = process.hrtime.bigint();
    this.proc = spawn(process.execPath, [...nodeArgs, script, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exitPromise = new Promise((resolve) => {
      this.proc.once('exit', (code, signal) => {
        this.exited = true;
        this.exitCode = code;
        const error = new Error(
          `${script} exited (code ${code}, signal ${signal}) with requests pending. stderr:\n${this.stderrTail}`,
        );
        for (const entry of this.pending.values()) {
          clearTimeout(entry.timer);
          entry.reject(error);
        }
        this.pending.clear();
        resolve(undefined);
      });
    });
    this.proc.once('error', (error) => {
      for (const entry of this.pending.values()) entry.reject(error);
      this.pending.clear();
    });
    this.proc.stdin.on('error', () => {}); // EPIPE when the child dies first; the exit handler reports it
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk) => this.onData(chunk));
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
  }

  /** @param {string} chunk */
  onData(chunk) {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line) this.onLine(line);
      newline = this.buffer.indexOf('\n');
    }
  }

  /** @param {string} line */
  onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not JSON-RPC (a stray log line on stdout); ignore
    }
    if (message.id === undefined || message.method !== undefined) return; // notification or server request
    this.lastResponseAt = process.hrtime.bigint();
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    clearTimeout(entry.timer);
    entry.resolve(message);
  }

  /**
   * Send a request; resolves with the whole JSON-RPC response (result or error) when its line is parsed.
   * @param {string} method
   * @param {unknown} [params]
   * @param {number} [timeoutMs]
   * @returns {Promise<any>}
   */
  request(method, params, timeoutMs = 15000) {
    const id = this.nextId++;
    return this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, timeoutMs);
  }

  /**
   * @param {{id: number} & Record<string, unknown>} message
   * @param {number} timeoutMs
   * @returns {Promise<any>}
   */
  send(message, timeoutMs) {
    return new Promise((resolve, reject) => {
      if (this.exited) {
        reject(new Error(`process already exited. stderr:\n${this.stderrTail}`));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(message.id);
        reject(
          new Error(`no answer to ${message.method} within ${timeoutMs} ms. stderr:\n${this.stderrTail}`),
        );
      }, timeoutMs);
      this.pending.set(message.id, { resolve, reject, timer });
      this.proc.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** @param {string} method @param {unknown} [params] */
  notify(method, params) {
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  }

  /** Send initialize (id 0); resolves with the response. */
  initialize(timeoutMs = 20000) {
    return this.send(INITIALIZE, timeoutMs);
  }

  /**
   * Read a field of /proc/<pid>/status in KiB (VmRSS = resident now, VmHWM = peak resident).
   * @param {'VmRSS' | 'VmHWM'} field
   * @returns {number | null}
   */
  memoryKiB(field) {
    try {
      const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return match ? Number(match[1]) : null;
    } catch {
      return null; // not Linux, or the process is gone
    }
  }

  /**
   * CPU time (user + system) the process has used so far, in ms, from /proc/<pid>/stat (10 ms ticks).
   * @returns {number | null}
   */
  cpuMs() {
    try {
      const stat = readFileSync(`/proc/${this.proc.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is field 3 (state); utime and stime are fields 14 and 15, in USER_HZ (100 on Linux).
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      return null;
    }
  }

  /** Close stdin (the graceful way a host ends a stdio server), SIGTERM then SIGKILL if it lingers. */
  async stop() {
    if (this.exited) return;
    this.proc.stdin.end();
    const term = setTimeout(() => this.proc.kill('SIGTERM'), 2000);
    const kill = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exitPromise;
    clearTimeout(term);
    clearTimeout(kill);
  }
}
