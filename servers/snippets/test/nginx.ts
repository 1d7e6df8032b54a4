/**
 * A real nginx in front of two replicas, configured by the repository's example (docs/deploy/nginx.conf):
 * its replica addresses and listen port are swapped for the test's, inside a throwaway prefix.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const nginxExample = fileURLToPath(new URL('../../../docs/deploy/nginx.conf', import.meta.url));

/** The nginx binary: on the PATH, else where Debian's package puts it (/usr/sbin is not on every PATH). */
export function nginxBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) if (dir && existsSync(join(dir, 'nginx'))) return join(dir, 'nginx');
  throw new Error(
    'The replicas test needs nginx, which is on neither the PATH nor /usr/sbin: install it ' +
      '(apt-get install nginx-light, or nginx); .ci/run installs it when missing',
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
export function exampleFor(replicas: { a: string; b: string }, port: number): string {
  const swaps: [string, string][] = [
    ['127.0.0.1:3001', replicas.a],
    ['127.0.0.1:3002', replicas.b],
    ['listen 8080;', `listen 127.0.0.1:${port};`],
  ];
  let text = readFileSync(nginxExample, 'utf8');
  for (const [from, to] of swaps) {
    if (!text.includes(from)) throw new Error(`${nginxExample} no longer holds "${from}"; update this test`);
    text = text.replaceAll(from, to);
  }
  return text;
}

export interface Nginx {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** Access log lines: method, status, Mcp-Session-Id (or -) and the upstream address that answered. */
  accessLog(): string[];
  stderr: string[];
  stop(): Promise<void>;
}

/** Starts nginx in the foreground on a free port, with a temp prefix, and waits until it proxies /healthz. */
export async function startNginx(replicas: { a: string; b: string }): Promise<Nginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'shipyard-nginx-'));
  const port = await freePort();
  writeFileSync(join(prefix, 'shipyard.conf'), exampleFor(replicas, port));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
    (kind) => `  ${kind}_temp_path ${join(prefix, kind)};`,
  );
  const main = [
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
  const config = join(prefix, 'nginx.conf');
  writeFileSync(config, main);
  const stderr: string[] = [];
  // -e: errors before the config is read go to stderr, not to the packaged /var/log path.
  const child: ChildProcess = spawn(nginxBinary(), ['-p', prefix, '-c', config, '-e', 'stderr'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
      throw new Error(`nginx exited with ${child.exitCode} before proxying:\n${stderr.join('')}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not proxy /healthz in time:\n${stderr.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    stderr,
    accessLog: () => {
      const file = join(prefix, 'access.log');
      return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    },
    stop,
  };
}
