import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { clientKey, type Guards } from './http-guards.js';
import type { SessionEntry, SessionTable } from './http-sessions.js';
import { bodyProblem, isObject, parseJson, TooDeep } from './messages.js';
import type { Runtime } from './runtime.js';
import { answerForTheSdk, transportHolds } from './sdk-shims.js';

export const MCP_PATH = '/mcp';

export interface HandlerOptions {
  /** Largest request body accepted, in bytes. */
  maxBody: number;
  /** Starts every session id (`<replica>.<uuid>`). */
  replica: string;
  /** No sessions: each POST is answered by a protocol server of its own, offering tools only. */
  stateless: boolean;
  /** Answer the requests still running without a session with a shutdown error (filled here). */
  statelessRunning: Set<() => Promise<unknown>>;
}

/**
 * The handler of one HTTP request: the guards, the body's checks, then the session it names (or a new one
 * for an initialize), whose transport answers it.
 */
export function requestHandler(
  runtime: Runtime,
  table: SessionTable,
  guard: Guards,
  { maxBody, replica, stateless, statelessRunning }: HandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (!guard.hostAllowed(req.headers.host)) {
      return sendJson(res, 403, {
        error: req.headers.host
          ? 'Forbidden: Host not allowed; to accept a name, start the server with --allowed-hosts'
          : 'Forbidden: the request has no Host header',
      });
    }
    if (!guard.originAllowed(req.headers.origin))
      return sendJson(res, 403, { error: 'Forbidden: Origin not allowed' });
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' && req.method === 'GET') {
      // No token needed, so nothing about the sessions; the replica id, for a load balancer's checks.
      return sendJson(res, 200, { status: 'ok', server: runtime.definition.name, replica });
    }
    if (path !== MCP_PATH) return sendJson(res, 404, { error: `Not found; the MCP endpoint is ${MCP_PATH}` });
    if (!guard.authorised(req.headers.authorization)) {
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
      // Cut off (by its client, or the request timeout): the server's clientError handler counted it.
      if (raw === GONE) return;
      if (raw === undefined) {
        // Stop reading the rest of an oversized body: answer, then drop the connection.
        res.setHeader('Connection', 'close');
        res.once('finish', () => req.destroy());
        return rpcError(res, 413, -32600, `Request body larger than ${maxBody} bytes`);
      }
      try {
        body = parseJson(raw);
      } catch (error) {
        if (error instanceof TooDeep) return rpcError(res, 400, -32600, error.message);
        return rpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
      // What the SDK would answer -32700 with id null ("Parse error" for JSON), or run and lose the answer of
      // (an id used twice in a batch), is told what is wrong, under the request's id where it has one.
      const problem = bodyProblem(body);
      if (problem) return rpcError(res, 400, problem.code, problem.message, problem.id);
    }

    if (stateless) return withoutSession(req, res, body);
    const sessionId = headerValue(req.headers['mcp-session-id']);
    if (sessionId) {
      const entry = table.get(sessionId);
      if (!entry) {
        return rpcError(
          res,
          404,
          -32001,
          'Session not found: it has ended (closed after a time without requests, to make room, or by DELETE) or never existed; initialize a new session (initialize without an Mcp-Session-Id header)',
        );
      }
      return inSession(entry, req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeBody(body)) {
      // An initialize with bad params is told what is wrong with them, as over stdio, not to send one.
      const problem = req.method === 'POST' ? runtime.initializeProblem(body) : undefined;
      if (problem)
        return rpcError(res, 400, problem.code, problem.message, (body as { id: string | number }).id);
      return rpcError(res, 400, -32000, 'Bad request: send initialize first, then the Mcp-Session-Id header');
    }
    // Room for this one and for the initializes still being answered, each of which may close a session.
    const client = clientKey(req.socket.remoteAddress);
    const refusal = table.refusal(client);
    if (refusal === 'full') {
      return rpcError(
        res,
        503,
        -32000,
        `Too many sessions (${table.maxSessions}), each running a call or just opened; retry later`,
      );
    }
    if (refusal === 'client') {
      return rpcError(
        res,
        429,
        -32000,
        `Too many sessions from ${client} (${table.maxSessionsPerClient}), each running a call or just opened; end one with DELETE, or retry later`,
      );
    }
    return openSession(req, res, body, client);
  };

  /** A request of an open session, whose ids are not already in use by a request being answered. */
  async function inSession(entry: SessionEntry, req: IncomingMessage, res: ServerResponse, body: unknown) {
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
    // A GET stream is not a request of the client's: it leaves the session idle (see SessionEntry.lastSeen).
    if (req.method !== 'GET') {
      entry.lastSeen = Date.now();
      entry.busy++;
      res.once('close', () => {
        entry.busy--;
        entry.lastSeen = Date.now();
      });
    }
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
  }

  /** An initialize: a new transport and protocol server, kept in the table once the transport opens it. */
  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, client: string) {
    /** Whether this initialize still counts in `opening` (until its session is opened, or it is refused). */
    let pending = true;
    const unanswered = new Set<string | number>();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      // The replica first, so a load balancer can send the session's requests where it lives.
      sessionIdGenerator: () => `${replica}.${randomUUID()}`,
      onsessioninitialized: (id) => {
        table.opened(client);
        pending = false;
        const now = Date.now();
        // Room is made only for an initialize the transport accepted.
        table.add(id, {
          transport,
          client,
          opened: now,
          lastSeen: now,
          busy: 0,
          arriving: new Set(),
          unanswered,
          shuttingDown: answers.shuttingDown,
        });
      },
      onsessionclosed: (id) => table.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) table.delete(transport.sessionId);
    };
    const answers = answerForTheSdk(transport, unanswered);
    table.opens(client);
    try {
      answers.watchAborts(await runtime.connect(transport));
      await transport.handleRequest(req, res, body);
    } finally {
      if (pending) table.opened(client);
    }
    // The transport refused the initialize (a wrong Accept or Content-Type): no session was opened, so
    // release the protocol server connected for it, or every refused request would keep one.
    if (!transport.sessionId) await transport.close();
  }

  /** --stateless: a POST answered by a protocol server of its own, gone with its answer. */
  async function withoutSession(req: IncomingMessage, res: ServerResponse, body: unknown) {
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return rpcError(
        res,
        405,
        -32000,
        'Method not allowed: this server keeps no sessions (--stateless), so it has no GET stream to open and no session to end; send POST requests only',
      );
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const unanswered = new Set(requestIds(body));
    const answers = answerForTheSdk(transport, unanswered);
    statelessRunning.add(answers.shuttingDown);
    res.once('close', () => {
      statelessRunning.delete(answers.shuttingDown);
      transport.close().catch(() => {});
    });
    await runtime.connect(transport, { toolsOnly: true });
    await transport.handleRequest(req, res, body);
  }
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

function isInitializeBody(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** What readBody gives for a request whose connection closed before its body was in. */
const GONE = Symbol('gone');

/**
 * The body as text, undefined when it is (or is declared) larger than `limit` bytes, or GONE when the
 * connection closed before it was in.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined | typeof GONE> {
  // A Content-Length over the limit is refused before a byte is read: waiting for a body that size (or for
  // one that never comes) would hold the connection for nothing.
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(undefined);
  return new Promise((resolve) => {
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
    req.on('error', () => resolve(GONE));
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

export function rpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id });
}
