import { randomBytes } from 'node:crypto';
import { createServer, type Server as NodeHttpServer, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { HttpEvents } from './http-events.js';
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
  /** A session with no request (POST or DELETE) for this long is closed, GET stream or not (default 10 minutes). */
  idleTimeoutMs?: number;
  /**
   * Open sessions at most (default 100): a new one closes the session idle longest, or gets 503 when every
   * session runs a call or was just opened. Clients that go away without DELETE leave sessions behind.
   */
  maxSessions?: number;
  /**
   * Open sessions of one client (one remote address; an IPv6 /64) at most (default half of maxSessions,
   * rounded up): its new one closes its own session idle longest, or gets 429 when none of them may be closed.
   */
  maxSessionsPerClient?: number;
  /** How long a request's headers and body may take to arrive; past it the connection is closed (default 10 s). */
  requestTimeoutMs?: number;
  /** How often at most a summary of cut-off requests and closed sessions is logged (default 60 s). */
  summaryIntervalMs?: number;
  /** Starts every session id (`<replica>.<uuid>`), for a load balancer to route by (default a random id). */
  replicaId?: string;
  /** No sessions: each POST is answered by a protocol server of its own, which offers tools only. */
  stateless?: boolean;
  /**
   * A session opened less than this long ago is not closed to make room (default 10 s): its client has not
   * had the time to use it yet, and a burst of new clients would otherwise close each other's sessions.
   */
  newSessionGraceMs?: number;
}

export interface HttpHandle {
  url: string;
  port: number;
  /** What starts this server's session ids. */
  replica: string;
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
  const events = new HttpEvents(log, options.summaryIntervalMs ?? 60_000);
  const maxSessions = options.maxSessions ?? 100;
  const table = new SessionTable(
    {
      idleTimeoutMs: options.idleTimeoutMs ?? 10 * 60_000,
      maxSessions,
      maxSessionsPerClient: Math.min(maxSessions, options.maxSessionsPerClient ?? Math.ceil(maxSessions / 2)),
      graceMs: options.newSessionGraceMs ?? 10_000,
    },
    events,
    log,
  );
  const replica = options.replicaId ?? randomBytes(4).toString('hex');
  /** The requests answered without a session (--stateless) still running. */
  const statelessRunning = new Set<() => Promise<unknown>>();
  const handle = requestHandler(runtime, table, guards(options), {
    maxBody,
    replica,
    stateless: options.stateless ?? false,
    statelessRunning,
  });
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  /** Each connection's request being answered: an error may be answered on the connection only before it. */
  const answering = new WeakMap<Socket, ServerResponse>();

  // Requests in flight, GET streams aside (they last as long as the session): close() lets them finish.
  let inflight = 0;
  let drained = () => {};
  /** Set when close() begins: a request that comes after is told the server is going, on its own connection. */
  let closing = false;
  const server: NodeHttpServer = createServer(
    {
      // Headers and body alike, so a client trickling either cannot hold a connection; the responses (a GET
      // stream, a long call) are not limited. Node checks at each interval, so it is a fraction of the limit.
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, requestTimeoutMs / 5)),
    },
    (req, res) => {
      const { socket } = req;
      answering.set(socket, res);
      res.once('close', () => {
        if (answering.get(socket) === res) answering.delete(socket);
      });
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
    },
  );
  server.keepAliveTimeout = 5_000;
  // A request cut off (by its client or the timeout) or malformed is counted, not logged one line each.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const kind = clientErrorKind(error.code);
    events.count(kind);
    if (socket.writable && !answering.get(socket)?.headersSent)
      socket.write(clientErrorAnswer(kind, error.code, requestTimeoutMs));
    socket.destroy();
  });

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
    events.flush();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;

  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${displayHost}:${port}${MCP_PATH}`,
    port,
    replica,
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
        await Promise.allSettled(
          [...[...table.sessions.values()].map((entry) => entry.shuttingDown), ...statelessRunning].map(
            (stop) => stop(),
          ),
        );
        await settle(500);
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await table.closeAll();
      server.closeAllConnections();
      await stopped;
      events.flush();
    },
  };
}

function clientErrorKind(code: string | undefined): 'timedOut' | 'malformed' | 'aborted' {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'timedOut';
  // The connection ended in the middle of a request: its client closed it.
  if (code === 'HPE_INVALID_EOF_STATE' || !code?.startsWith('HPE_')) return 'aborted';
  return 'malformed';
}

/** A whole HTTP response for a connection Node's parser gave up on, which is then closed. */
function clientErrorAnswer(
  kind: ReturnType<typeof clientErrorKind>,
  code: string | undefined,
  timeoutMs: number,
) {
  const [status, message] =
    kind === 'timedOut'
      ? [
          408,
          `Request timeout: its headers and body must arrive within ${timeoutMs / 1000} s (--request-timeout); send it again`,
        ]
      : kind === 'aborted'
        ? [400, 'Bad request: the connection ended before the whole request had arrived']
        : code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request header fields too large']
          : [400, 'Bad request: not valid HTTP/1.1'];
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
