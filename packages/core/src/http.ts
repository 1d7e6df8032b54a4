import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { bodyProblem, isObject, parseJson } from './messages.js';
import type { Runtime } from './runtime.js';

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

const MCP_PATH = '/mcp';
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

interface SessionEntry {
  transport: StreamableHTTPServerTransport;
  /** When it was opened. */
  opened: number;
  /** When its last request ended (or its last stream closed). */
  lastSeen: number;
  /** Open GET streams: a client listening for notifications is not idle. */
  streams: number;
  /** Requests being answered: a session running a long call is not idle either. */
  busy: number;
  /**
   * Ids of its requests on their way to the transport: from the check below until the transport has taken
   * their POST (and, from then, holds them itself: {@link transportHolds}).
   */
  arriving: Set<string | number>;
  /** Ids of its requests the transport has taken and not yet answered (see {@link answerForTheSdk}). */
  unanswered: Set<string | number>;
  /** Answer the requests still running with a shutdown error. */
  shuttingDown: () => Promise<unknown>;
}

/** Error codes of the answers core gives for the SDK (see {@link answerForTheSdk}). */
const REQUEST_CANCELLED = -32800;
const SHUTTING_DOWN = -32000;
/** How long a closing server goes on listening once no request is in flight (see close). */
const ACCEPT_GRACE_MS = 100;

/**
 * Keep `unanswered` as the transport answers, and answer for the SDK where it never will:
 * - a request the client cancelled: the SDK sends no answer (as MCP asks), but its HTTP transport keeps the
 *   POST open and the id taken until every request of that POST is answered, so each cancelled call held a
 *   connection (and its id) for the life of the session, and kept a shutdown waiting its whole drain. A
 *   cancelled request is answered with an error, which a client that cancelled ignores (MCP: it SHOULD);
 * - a request still running when a shutdown has waited its drain: told so, rather than its stream cut.
 * Installed before the protocol server connects, so every answer passes here.
 */
function answerForTheSdk(transport: StreamableHTTPServerTransport, unanswered: Set<string | number>) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('id' in message && !('method' in message)) unanswered.delete(message.id as string | number);
    return send(message, options);
  };
  const answer = (id: string | number, code: number, message: string): Promise<void> =>
    unanswered.has(id) && transportHolds(transport, id)
      ? transport.send({ jsonrpc: '2.0', id, error: { code, message } }).catch(() => {})
      : Promise.resolve();
  return {
    /**
     * After the protocol server has connected: answer a request once the SDK has aborted its handler (a
     * cancel; from then on the SDK sends nothing for it), whatever order the cancel and the request came
     * in. A cancel the SDK does not act on (of id 0, or with a reason that is not a string) aborts nothing,
     * and the request answers itself. The SDK keeps its handlers' abort controllers in a field that is not
     * public (as {@link transportHolds} reads another); without it no cancelled request is answered, and a
     * test fails.
     */
    watchAborts(server: Server) {
      const controllers = (server as unknown as { _requestHandlerAbortControllers?: unknown })
        ._requestHandlerAbortControllers;
      if (!(controllers instanceof Map)) return;
      const set = controllers.set.bind(controllers);
      controllers.set = (id: string | number, controller: AbortController) => {
        controller.signal.addEventListener(
          'abort',
          // Outside the SDK's own handling of the cancel (an answer it sent before the abort has left
          // `unanswered`, and after it, it sends none).
          () => setImmediate(() => void answer(id, REQUEST_CANCELLED, 'Request cancelled')),
          { once: true },
        );
        return set(id, controller);
      };
    },
    /** Answer every request still running with a shutdown error. */
    shuttingDown: () =>
      Promise.all(
        [...unanswered].map((id) =>
          answer(
            id,
            SHUTTING_DOWN,
            'The server is shutting down and did not finish this request; retry once it is back',
          ),
        ),
      ),
  };
}

/**
 * Whether the SDK's transport still correlates a request id with a response stream: from when it takes the
 * request until it has answered every request of that POST. A request with that id meanwhile would take
 * over the correlation: the first POST's answer would be lost, or go to the second POST (when the first's
 * client has gone, its call still runs). A field of the SDK's that is not public; a test fails if it goes.
 */
export function transportHolds(transport: StreamableHTTPServerTransport, id: string | number): boolean {
  const inner = (transport as unknown as { _webStandardTransport?: { _requestToStreamMapping?: unknown } })
    ._webStandardTransport?._requestToStreamMapping;
  return inner instanceof Map && inner.has(id);
}

/** The ids of the requests (messages with a method and an id) in a POST body, checked by bodyProblem. */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    isObject(message) && typeof message.method === 'string' && 'id' in message
      ? [message.id as string | number]
      : [],
  );
}

/** A session no request or stream is using. */
const idle = (entry: SessionEntry) => entry.streams === 0 && entry.busy === 0;

export async function serveHttp(runtime: Runtime, options: HttpOptions): Promise<HttpHandle> {
  if (!isLoopback(options.host) && !options.token) {
    throw new Error(
      `Refusing to listen on ${options.host} without a token: set SHIPYARD_HTTP_TOKEN, or bind to 127.0.0.1`,
    );
  }
  if (options.token && options.token.trim() !== options.token) {
    throw new Error(
      'SHIPYARD_HTTP_TOKEN starts or ends with a blank (or is blank), which no Authorization header can carry: set it without',
    );
  }
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const idleTimeout = options.idleTimeoutMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 100;
  const grace = options.newSessionGraceMs ?? 10_000;
  const sessions = new Map<string, SessionEntry>();
  /** Initializes let through and not yet answered: each will take a place, or make room for itself. */
  let opening = 0;
  /** Sessions that may be closed to make room: idle, and not just opened. */
  const closable = () => {
    const now = Date.now();
    return [...sessions].filter(([, entry]) => idle(entry) && now - entry.opened >= grace);
  };
  const log = runtime.log;
  let port = options.port;

  // A Host header names an IPv6 address in brackets ([2001:db8::1]); the bind address has none.
  const bindNames = options.host.includes(':') ? [options.host, `[${options.host}]`] : [options.host];
  const hostNames = new Set(
    [...LOOPBACK_NAMES, ...bindNames, ...(options.allowedHosts ?? [])].map((h) => h.toLowerCase()),
  );
  // By name only, as the Origin check: DNS rebinding arrives under the attacker's name, and a port in the
  // header is whatever a proxy or a port mapping in front of the server made it.
  const hostAllowed = (hostHeader: string | undefined): boolean => {
    const url = hostHeader ? safeUrl(`http://${hostHeader}`) : undefined;
    return !!url && hostNames.has(url.hostname.toLowerCase());
  };
  const originAllowed = (origin: string | undefined): boolean => {
    if (origin === undefined) return true;
    const url = safeUrl(origin);
    return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && hostNames.has(url.hostname);
  };
  // Digests of equal length are compared, so neither the token nor its length shows in the time taken.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = options.token ? digest(options.token) : undefined;
  const authorised = (header: string | undefined): boolean => {
    if (!expected) return true;
    // The scheme is case-insensitive (RFC 9110); the token is compared in constant time.
    const match = /^bearer +(.*)$/i.exec(header ?? '');
    return timingSafeEqual(digest(match?.[1] ?? ''), expected);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostAllowed(req.headers.host)) {
      return sendJson(res, 403, {
        error: req.headers.host
          ? 'Forbidden: Host not allowed; to accept a name, start the server with --allowed-hosts'
          : 'Forbidden: the request has no Host header',
      });
    }
    if (!originAllowed(req.headers.origin))
      return sendJson(res, 403, { error: 'Forbidden: Origin not allowed' });
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' && req.method === 'GET') {
      // No token needed, so nothing about the sessions.
      return sendJson(res, 200, { status: 'ok', server: runtime.definition.name });
    }
    if (path !== MCP_PATH) return sendJson(res, 404, { error: `Not found; the MCP endpoint is ${MCP_PATH}` });
    if (!authorised(req.headers.authorization)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return sendJson(res, 401, { error: 'Unauthorized: send Authorization: Bearer <SHIPYARD_HTTP_TOKEN>' });
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      return sendJson(res, 405, { error: 'Method not allowed' });
    }

    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req, maxBody);
      if (raw === undefined) {
        // Stop reading the rest of an oversized body: answer, then drop the connection.
        res.setHeader('Connection', 'close');
        res.once('finish', () => req.destroy());
        return rpcError(res, 413, -32600, `Request body larger than ${maxBody} bytes`);
      }
      try {
        body = parseJson(raw);
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
      // What the SDK would answer -32700 with id null ("Parse error" for JSON), or run and lose the answer of
      // (an id used twice in a batch), is told what is wrong, under the request's id where it has one.
      const problem = bodyProblem(body);
      if (problem) return rpcError(res, 400, problem.code, problem.message, problem.id);
    }

    const sessionId = headerValue(req.headers['mcp-session-id']);
    if (sessionId) {
      const entry = sessions.get(sessionId);
      if (!entry) return rpcError(res, 404, -32001, 'Session not found; initialize a new session');
      entry.lastSeen = Date.now();
      const ids = req.method === 'POST' ? requestIds(body) : [];
      const reused = ids.find((id) => entry.arriving.has(id) || transportHolds(entry.transport, id));
      if (reused !== undefined) {
        return rpcError(
          res,
          400,
          -32600,
          `Invalid Request: id ${JSON.stringify(reused)} is in use by a request of this session still being answered`,
          reused,
        );
      }
      const kind = req.method === 'GET' ? 'streams' : 'busy';
      entry[kind]++;
      res.once('close', () => {
        entry[kind]--;
        entry.lastSeen = Date.now();
      });
      for (const id of ids) {
        entry.arriving.add(id);
        entry.unanswered.add(id);
      }
      try {
        await entry.transport.handleRequest(req, res, body);
      } finally {
        for (const id of ids) {
          entry.arriving.delete(id);
          // Refused whole by the transport (a wrong Accept, say): it will never be answered.
          if (!transportHolds(entry.transport, id)) entry.unanswered.delete(id);
        }
      }
      return;
    }
    if (req.method !== 'POST' || !isInitializeBody(body)) {
      // An initialize with bad params is told what is wrong with them, as over stdio, not to send one.
      const problem = req.method === 'POST' ? runtime.initializeProblem(body) : undefined;
      if (problem)
        return rpcError(res, 400, problem.code, problem.message, (body as { id: string | number }).id);
      return rpcError(res, 400, -32000, 'Bad request: send initialize first, then the Mcp-Session-Id header');
    }
    // Room for this one and for the initializes still being answered, each of which may close a session.
    if (sessions.size + opening + 1 - maxSessions > closable().length) {
      return rpcError(
        res,
        503,
        -32000,
        `Too many sessions (${maxSessions}); end one with DELETE, or retry later`,
      );
    }
    /** Whether this initialize still counts in `opening` (until its session is opened, or it is refused). */
    let pending = true;
    const unanswered = new Set<string | number>();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        opening--;
        pending = false;
        // Room is made only for an initialize the transport accepted.
        if (sessions.size >= maxSessions) closeIdlest();
        const now = Date.now();
        sessions.set(id, {
          transport,
          opened: now,
          lastSeen: now,
          streams: 0,
          busy: 0,
          arriving: new Set(),
          unanswered,
          shuttingDown: answers.shuttingDown,
        });
        log.debug('http session opened', { sessions: sessions.size });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const answers = answerForTheSdk(transport, unanswered);
    opening++;
    try {
      // Every request in a POST body (a message with a string method) was checked above (bodyProblem).
      answers.watchAborts(await runtime.connect(transport, { requestsChecked: true }));
      await transport.handleRequest(req, res, body);
    } finally {
      if (pending) opening--;
    }
    // The transport refused the initialize (a wrong Accept or Content-Type): no session was opened, so
    // release the protocol server connected for it, or every refused request would keep one.
    if (!transport.sessionId) await transport.close();
  };

  /** Close the session idle longest (no stream, no request, not just opened), to make room for a new one. */
  const closeIdlest = (): void => {
    let idlest: [string, SessionEntry] | undefined;
    for (const pair of closable()) if (!idlest || pair[1].lastSeen < idlest[1].lastSeen) idlest = pair;
    if (!idlest) return;
    sessions.delete(idlest[0]);
    idlest[1].transport.close().catch(() => {});
    log.info('closed the http session idle longest, to make room for a new one', { maxSessions });
  };

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

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleTimeout;
      for (const [id, entry] of sessions) {
        if (idle(entry) && entry.lastSeen < cutoff) {
          sessions.delete(id);
          entry.transport.close().catch(() => {});
        }
      }
    },
    Math.min(idleTimeout, 60_000),
  );
  sweep.unref();

  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${displayHost}:${port}${MCP_PATH}`,
    port,
    sessions: () => sessions.size,
    async close({ drainMs = 10_000 } = {}) {
      clearInterval(sweep);
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
        await Promise.allSettled([...sessions.values()].map((entry) => entry.shuttingDown()));
        await settle(500);
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...sessions.values()].map((entry) => entry.transport.close()));
      sessions.clear();
      server.closeAllConnections();
      await stopped;
    },
  };
}

function isInitializeBody(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The body as text, or undefined when it is (or is declared) larger than `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  // A Content-Length over the limit is refused before a byte is read: waiting for a body that size (or for
  // one that never comes) would hold the connection for nothing.
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id });
}
