/**
 * A real nginx or HAProxy in front of two replicas, configured by the repository's examples (docs/deploy/):
 * their replica addresses and listen port are swapped for the test's, inside a throwaway folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ProxyKind = 'nginx' | 'haproxy';

const examples: Record<ProxyKind, { file: string; listen: string }> = {
  nginx: { file: 'nginx.conf', listen: 'listen 8080;' },
  haproxy: { file: 'haproxy.cfg', listen: 'bind :8080' },
};

/** A proxy's binary: on the PATH, else where Debian's package puts it (/usr/sbin is not on every PATH). */
export function proxyBinary(kind: ProxyKind): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) if (dir && existsSync(join(dir, kind))) return join(dir, kind);
  throw new Error(
    `The replicas test needs ${kind}, which is on neither the PATH nor /usr/sbin: install it ` +
      `(apt-get install ${kind}); .ci/run installs it when missing`,
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The example with its replica addresses and listen port replaced; throws if one is not in it. */
export function exampleFor(kind: ProxyKind, replicas: { a: string; b: string }, port: number): string {
  const { file, listen } = examples[kind];
  const path = fileURLToPath(new URL(`../../../docs/deploy/${file}`, import.meta.url));
  const swaps: [string, string][] = [
    ['10.0.0.11:3001', replicas.a],
    ['10.0.0.12:3001', replicas.b],
    [listen, listen.replace(/:?8080/, `127.0.0.1:${port}`)],
  ];
  let text = readFileSync(path, 'utf8');
  for (const [from, to] of swaps) {
    if (!text.includes(from)) throw new Error(`${path} no longer holds "${from}"; update this test`);
    text = text.replaceAll(from, to);
  }
  return text;
}

export interface RunningProxy {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** nginx's access log lines: method, status, Mcp-Session-Id (or -) and the upstream that answered. */
  accessLog?(): string[];
  stderr: string[];
  stop(): Promise<void>;
}

/** nginx's main config around the example (which goes in the http context), all files in `prefix`. */
function nginxMain(prefix: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
    (kind) => `  ${kind}_temp_path ${join(prefix, kind)};`,
  );
  return [
    // As root, workers would switch to nobody, who cannot enter the root-only temp prefix.
    process.getuid?.() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(prefix, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 256; }',
    'http {',
    "  log_format routed '$request_method $status $http_mcp_session_id $upstream_addr';",
    `  access_log ${join(prefix, 'access.log')} routed;`,
    ...temp,
    `  include ${join(prefix, 'shipyard.conf')};`,
    '}',
    '',
  ].join('\n');
}

/**
 * Starts the proxy in the foreground on a free port with the example's configuration, and waits until it
 * passes /healthz on to a replica.
 */
export async function startProxy(kind: ProxyKind, replicas: { a: string; b: string }): Promise<RunningProxy> {
  const prefix = mkdtempSync(join(tmpdir(), `shipyard-${kind}-`));
  const port = await freePort();
  let args: string[];
  if (kind === 'nginx') {
    writeFileSync(join(prefix, 'shipyard.conf'), exampleFor(kind, replicas, port));
    writeFileSync(join(prefix, 'nginx.conf'), nginxMain(prefix));
    // -e: errors before the config is read go to stderr, not to the packaged /var/log path.
    args = ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', 'stderr'];
  } else {
    writeFileSync(join(prefix, 'haproxy.cfg'), exampleFor(kind, replicas, port));
    // -db: in the foreground.
    args = ['-db', '-f', join(prefix, 'haproxy.cfg')];
  }
  const stderr: string[] = [];
  const child: ChildProcess = spawn(proxyBinary(kind), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(prefix, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${kind} exited with ${child.exitCode} before proxying:\n${stderr.join('')}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${kind} did not pass /healthz on in time:\n${stderr.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const log = join(prefix, 'access.log');
  return {
    url,
    stderr,
    ...(kind === 'nginx'
      ? { accessLog: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) }
      : {}),
    stop,
  };
}
