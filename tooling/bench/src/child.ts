// A spawned MCP server spoken to with raw newline-delimited JSON-RPC over its stdin/stdout. No SDK client on
// purpose: the client side should cost little, and the same for both sides.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const PROTOCOL_VERSION = '2025-06-18';

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages are whatever the server sends
export type Message = any;

interface Pending {
  resolve: (message: Message) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** The CPUs this process may run on (children inherit them), e.g. `1` under `taskset -c 1`; null off Linux. */
export function cpusAllowed(): string | null {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * The environment of every child: ours minus NODE_EXTRA_CA_CERTS, which makes every Node start read a CA
 * bundle. Removed for both sides alike.
 */
export function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

export class Child {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly spawnedAt = process.hrtime.bigint();
  /** hrtime (ns) of the last response line parsed; read it right after awaiting a request. */
  lastResponseAt = 0n;
  private readonly pending = new Map<number, Pending>();
  private readonly exitPromise: Promise<void>;
  private nextId = 1;
  private buffer = '';
  private stderrTail = '';
  private exited = false;

  /** `env` is added to the children's environment (e.g. a database URL, which must not show in `ps`). */
  constructor(script: string, args: string[], env: Record<string, string> = {}) {
    this.proc = spawn(process.execPath, [script, ...args], {
      env: { ...childEnv(), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exitPromise = new Promise((resolve) => {
      this.proc.once('exit', (code, signal) => {
        this.exited = true;
        this.failAll(
          new Error(`${script} exited (code ${code}, signal ${signal}). stderr:\n${this.stderrTail}`),
        );
        resolve();
      });
    });
    this.proc.once('error', (error) => this.failAll(error));
    this.proc.stdin.on('error', () => {}); // EPIPE when the child dies first; the exit handler reports it
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
  }

  private failAll(error: Error): void {
    for (const entry of this.pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
    this.pending.clear();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line) this.onLine(line);
      newline = this.buffer.indexOf('\n');
    }
  }

  private onLine(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not JSON-RPC
    }
    if (message.id === undefined || message.method !== undefined) return; // notification or server request
    this.lastResponseAt = process.hrtime.bigint();
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    clearTimeout(entry.timer);
    entry.resolve(message);
  }

  /** Send a request; resolves with the whole response (result or error) once its line is parsed. */
  request(method: string, params?: unknown, timeoutMs = 30_000): Promise<Message> {
    const id = method === 'initialize' ? 0 : this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.exited) {
        reject(new Error(`process already exited. stderr:\n${this.stderrTail}`));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs} ms. stderr:\n${this.stderrTail}`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      const message = { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
      this.proc.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** initialize, failing on an error answer. */
  async initialize(): Promise<void> {
    const response = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'shipyard-bench', version: '0.0.0' },
    });
    if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
  }

  notify(method: string): void {
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** Resident memory now, in KiB, from /proc/<pid>/status; null off Linux. */
  rssKiB(): number | null {
    try {
      const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  }

  /** Close stdin (how a host ends a stdio server), then SIGTERM and SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (this.exited) return;
    this.proc.stdin.end();
    const term = setTimeout(() => this.proc.kill('SIGTERM'), 2000);
    const kill = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exitPromise;
    clearTimeout(term);
    clearTimeout(kill);
  }
}
