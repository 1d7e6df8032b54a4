// Calls per second over HTTP: server processes on `--transport http`, each with its replica id, on one
// PostgreSQL database; N clients, each with its own session on one replica, spread over them by the client.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, type Message, PROTOCOL_VERSION } from './child.ts';
import type { Throughput, ToolCall } from './scenario.ts';
import { median } from './stats.ts';

type Log = (line: string) => void;

interface Replica {
  id: string;
  url: URL;
  agent: Agent;
  proc: ChildProcess;
  stderr(): string;
}

/** Starts one replica on a free port and resolves once it says where it listens. */
async function startReplica(o: {
  script: string;
  id: string;
  dataDir: string;
  env: Record<string, string>;
  sessions: number;
}): Promise<Replica> {
  const proc = spawn(
    process.execPath,
    [
      o.script,
      ...['--transport', 'http', '--port', '0', '--replica-id', o.id, '--data-dir', o.dataDir],
      // Every client comes from 127.0.0.1: the per-client limit must let all of them in.
      ...['--max-sessions', String(o.sessions), '--max-sessions-per-client', String(o.sessions)],
    ],
    { env: { ...childEnv(), ...o.env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr?.setEncoding('utf8');
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`replica ${o.id}: no "listening" within 30 s:\n${stderr}`)),
      30_000,
    );
    proc.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
      const found = /listening on (http:\/\/\S+)/.exec(stderr);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(new URL(found[1]));
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica ${o.id} exited (code ${code}) before listening:\n${stderr}`));
    });
  });
  return { id: o.id, url, agent: new Agent({ keepAlive: true }), proc, stderr: () => stderr };
}

async function stopReplica(replica: Replica): Promise<void> {
  replica.agent.destroy();
  if (replica.proc.exitCode !== null || replica.proc.signalCode !== null) return;
  const exited = new Promise((resolve) => replica.proc.once('exit', resolve));
  replica.proc.kill('SIGTERM');
  const kill = setTimeout(() => replica.proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(kill);
}

/** One MCP session over Streamable HTTP, with raw requests: the client side should cost little. */
class Session {
  private id: string | undefined;
  private nextId = 1;

  constructor(
    readonly replica: Replica,
    private readonly token: string,
  ) {}

  private post(message: object): Promise<{ status: number; sessionId?: string; body: string }> {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const req = request(
        this.replica.url,
        {
          method: 'POST',
          agent: this.replica.agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${this.token}`,
            'mcp-protocol-version': PROTOCOL_VERSION,
            ...(this.id ? { 'mcp-session-id': this.id } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => {
            const sessionId = res.headers['mcp-session-id'];
            resolve({
              status: res.statusCode ?? 0,
              body: text,
              ...(typeof sessionId === 'string' ? { sessionId } : {}),
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** A request's answer, from a JSON body or the SSE stream's event that carries its id. */
  private async call(method: string, params: unknown): Promise<Message> {
    const id = this.nextId++;
    const answer = await this.post({ jsonrpc: '2.0', id, method, params });
    if (answer.status !== 200) {
      throw new Error(
        `${method} on replica ${this.replica.id}: HTTP ${answer.status} ${answer.body.slice(0, 300)}`,
      );
    }
    if (answer.sessionId) this.id = answer.sessionId;
    const texts = answer.body.trimStart().startsWith('{')
      ? [answer.body]
      : answer.body.split('\n').flatMap((line) => (line.startsWith('data:') ? [line.slice(5)] : []));
    for (const text of texts) {
      const message = JSON.parse(text);
      if (message.id === id) return message;
    }
    throw new Error(`${method} on replica ${this.replica.id}: no answer in ${answer.body.slice(0, 300)}`);
  }

  async open(): Promise<void> {
    const answer = await this.call('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'shipyard-bench', version: '0.0.0' },
    });
    if (answer.error || !this.id)
      throw new Error(`initialize failed: ${JSON.stringify(answer.error ?? answer)}`);
    const initialized = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
  }

  /** tools/call; a failed call throws, so a broken call is never counted. */
  async tool(call: ToolCall): Promise<unknown> {
    const answer = await this.call('tools/call', call);
    if (answer.error || answer.result?.isError) {
      throw new Error(`tools/call ${call.name} failed: ${JSON.stringify(answer.error ?? answer.result)}`);
    }
    return answer.result;
  }
}

/** Every session repeats the call until `ms` is over; the calls answered, per second. */
async function round(sessions: Session[], call: ToolCall, ms: number): Promise<number> {
  const end = performance.now() + ms;
  const start = performance.now();
  let answered = 0;
  await Promise.all(
    sessions.map(async (session) => {
      while (performance.now() < end) {
        await session.tool(call);
        answered++;
      }
    }),
  );
  return answered / ((performance.now() - start) / 1000);
}

export interface ThroughputResult {
  name: string;
  clients: number;
  seconds: number;
  /** Calls per second of each round. */
  one: number[];
  two: number[];
}

/**
 * Replicas a and b on one database. Clients open their sessions, then rounds alternate: all clients on a,
 * then the clients spread over a and b (each session stays on its replica). A warm-up round of each first.
 */
export async function throughput(o: {
  spec: Throughput;
  script: string;
  databaseUrl: string;
  dataDir: string;
  clients: number;
  seconds: number;
  rounds: number;
  log: Log;
}): Promise<ThroughputResult> {
  const token = randomBytes(24).toString('hex');
  const env = { SHIPYARD_DATABASE_URL: o.databaseUrl, SHIPYARD_HTTP_TOKEN: token };
  const sessions = 2 * o.clients + 2;
  const replicas: Replica[] = [];
  try {
    for (const id of ['a', 'b']) {
      replicas.push(await startReplica({ script: o.script, id, dataDir: o.dataDir, env, sessions }));
    }
    const [a, b] = replicas as [Replica, Replica];
    const first = new Session(a, token);
    await first.open();
    const results: unknown[] = [];
    for (const call of o.spec.setup ?? []) results.push(await first.tool(call));
    const call = typeof o.spec.call === 'function' ? o.spec.call(results) : o.spec.call;
    const open = async (pick: (i: number) => Replica) => {
      const made = Array.from({ length: o.clients }, (_, i) => new Session(pick(i), token));
      for (const session of made) await session.open();
      return made;
    };
    const oneReplica = await open(() => a);
    const twoReplicas = await open((i) => (i % 2 === 0 ? a : b));
    const ms = o.seconds * 1000;
    await round(oneReplica, call, Math.min(ms, 1000));
    await round(twoReplicas, call, Math.min(ms, 1000));
    const result: ThroughputResult = {
      name: o.spec.name,
      clients: o.clients,
      seconds: o.seconds,
      one: [],
      two: [],
    };
    for (let r = 1; r <= o.rounds; r++) {
      result.one.push(await round(oneReplica, call, ms));
      await sleep(100);
      result.two.push(await round(twoReplicas, call, ms));
      o.log(
        `  HTTP ${o.spec.name}, ${o.clients} clients, round ${r}/${o.rounds}: one replica ` +
          `${result.one.at(-1)?.toFixed(0)}/s, two replicas ${result.two.at(-1)?.toFixed(0)}/s`,
      );
    }
    return result;
  } catch (error) {
    const tails = replicas.map((r) => `replica ${r.id} stderr:\n${r.stderr()}`).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tails}`, { cause: error });
  } finally {
    await Promise.all(replicas.map(stopReplica));
  }
}

/** The median calls per second of the one-replica and two-replica rounds. */
export const throughputMedians = (result: ThroughputResult) => ({
  one: median(result.one),
  two: median(result.two),
});
