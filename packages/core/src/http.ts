import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkExposure, guards } from './http-guards.js';
import { MCP_PATH, requestHandler, rpcError } from './http-handler.js';
import { SessionTable } from './http-sessions.js';
import type { Runtime } from './runtime.js';
import { SHUTTING_DOWN } from './sdk-shims.js';

export { isLoopback } from './http-guards.js';

/** Streamable HTTP: one protocol session per client, many clients per process. Loaded only for --transport http. */
export interface HttpOptions {
  host: string;
  port: number;
  /** Required when host is not a loopback address. */
  token?: string | undefined;
  /** Extra Host header names to accept (besides loopback names and the bind address). */
  allowedHosts?: readonly string[];
  /** Largest request body accepted, in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Sessions idle longer than this are closed (default 30 minutes). */
  idleTimeoutMs?: number;
  /**
   * Open sessions at most (default 100): a new one closes the session idle longest that has no GET stream,
   * or gets 503 when every session is listening. Clients that go away without DELETE leave sessions behind.
   */
  maxSessions?: number;
  /**
   * A session opened less than this long ago is not closed to make room (default 10 s): its client has not
   * had the time to use it yet, and a burst of new clients would otherwise close each other's sessions.
   */
  newSessionGraceMs?: number;
}

export interface HttpHandle {
  url: string;
  port: number;
  sessions(): number;
  /**
   * Stop accepting connections, let the requests already arriving finish (`drainMs`, default 10 s), then
   * close the sessions and every connection.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

/** How long a closing server goes on listening once no request is in flight (see close). */
const ACCEPT_GRACE_MS = 100;

export async function serveHttp(runtime: Runtime, options: HttpOptions): Promise<HttpHandle> {
  checkExposure(options);
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const log = runtime.log;
  const table = new SessionTable(
    {
      idleTimeoutMs: options.idleTimeoutMs ?? 30 * 60_000,
      maxSessions: options.maxSessions ?? 100,
      graceMs: options.newSessionGraceMs ?? 10_000,
    },
    log,
  );
  const handle = requestHandler(runtime, table, guards(options), maxBody);

  // Requests in flight, GET streams aside (they last as long as the session): close() lets them finish.
  let inflight = 0;
  let drained = () => {};
  /** Set when close() begins: a request that comes after is told the server is going, on its own connection. */
  let closing = false;
  const server: NodeHttpServer = createServer((req, res) => {
    if (closing) {
      res.setHeader('Connection', 'close');
      return rpcError(res, 503, SHUTTING_DOWN, 'The server is shutting down; retry once it is back');
    }
    if (req.method !== 'GET') {
      inflight++;
      res.once('close', () => {
        if (--inflight === 0) drained();
      });
    }
    handle(req, res).catch((error: unknown) => {
      log.error('http request failed', { error });
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    table.stopSweeping();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;

  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${displayHost}:${port}${MCP_PATH}`,
    port,
    sessions: () => table.size,
    async close({ drainMs = 10_000 } = {}) {
      table.stopSweeping();
      // A request still arriving or waiting for its answer stays until it is done, or until drainMs. The
      // server listens meanwhile and answers any new request 503 (-32000): closing the listening socket at
      // once would reset the connections still waiting to be accepted, and a client could not tell whether
      // the request it had sent on one was done.
      closing = true;
      /** Until no request is in flight, or `ms` have passed. */
      const settle = (ms: number) =>
        inflight === 0
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, ms);
              drained = () => {
                clearTimeout(timer);
                resolve();
              };
            });
      const deadline = Date.now() + drainMs;
      await settle(drainMs);
      // Connections the kernel had queued are accepted as the loop turns, and their requests read a turn
      // later: a moment for those to come in and be answered, before the listener and connections close.
      if (inflight === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(ACCEPT_GRACE_MS, deadline - Date.now())));
        await settle(Math.max(0, deadline - Date.now()));
      }
      if (inflight > 0) {
        // The calls still running get an error instead of a stream that ends with no answer, which a client
        // would wait on until its own timeout; a moment for those answers to leave.
        await Promise.allSettled([...table.sessions.values()].map((entry) => entry.shuttingDown()));
        await settle(500);
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await table.closeAll();
      server.closeAllConnections();
      await stopped;
    },
  };
}
