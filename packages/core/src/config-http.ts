/** The HTTP transport's settings, as flags and environment variables (read by parseConfig in config.ts). */

/** Each setting, in the unit HttpOptions takes; an unset one is left to the transport's default. */
export interface HttpSettings {
  maxSessions?: number;
  maxSessionsPerClient?: number;
  idleTimeoutMs?: number;
  requestTimeoutMs?: number;
  replicaId?: string;
  stateless?: boolean;
}

/** What a replica id may hold: it starts every session id, before a dot. */
export const REPLICA_ID = /^[A-Za-z0-9_-]{1,32}$/;

export const HTTP_OPTIONS = {
  'replica-id': { type: 'string' },
  stateless: { type: 'boolean' },
  'max-sessions': { type: 'string' },
  'max-sessions-per-client': { type: 'string' },
  'session-idle-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
} as const;

const MAX_COUNT = 100_000;
const MAX_SECONDS = 86_400;

/**
 * The limits given, each from its flag or else its variable. `read` gives a value as written (trimmed) with
 * where it came from; `fail` stops start-up with a message.
 */
export function parseHttpSettings(
  read: (flag: string, env: string) => { text: string; source: string } | undefined,
  fail: (message: string) => never,
): HttpSettings {
  const count = (flag: string, env: string) => {
    const given = read(flag, env);
    if (!given) return undefined;
    const value = Number(given.text);
    if (!/^\d+$/.test(given.text) || value < 1 || value > MAX_COUNT)
      fail(`${given.source} must be a whole number from 1 to ${MAX_COUNT}, got "${given.text}"`);
    return value;
  };
  const seconds = (flag: string, env: string) => {
    const given = read(flag, env);
    if (!given) return undefined;
    const value = Number(given.text);
    if (!/^\d+(\.\d+)?$/.test(given.text) || value <= 0 || value > MAX_SECONDS)
      fail(
        `${given.source} must be a number of seconds above 0 and at most ${MAX_SECONDS}, got "${given.text}"`,
      );
    return Math.max(1, Math.round(value * 1000));
  };
  const limits: HttpSettings = {};
  const maxSessions = count('max-sessions', 'SHIPYARD_MAX_SESSIONS');
  const maxSessionsPerClient = count('max-sessions-per-client', 'SHIPYARD_MAX_SESSIONS_PER_CLIENT');
  const idleTimeoutMs = seconds('session-idle-timeout', 'SHIPYARD_SESSION_IDLE_TIMEOUT');
  const requestTimeoutMs = seconds('request-timeout', 'SHIPYARD_REQUEST_TIMEOUT');
  if (maxSessions !== undefined) limits.maxSessions = maxSessions;
  if (maxSessionsPerClient !== undefined) limits.maxSessionsPerClient = maxSessionsPerClient;
  if (idleTimeoutMs !== undefined) limits.idleTimeoutMs = idleTimeoutMs;
  if (requestTimeoutMs !== undefined) limits.requestTimeoutMs = requestTimeoutMs;
  const replica = read('replica-id', 'SHIPYARD_REPLICA_ID');
  if (replica && !REPLICA_ID.test(replica.text))
    fail(
      `${replica.source} must be 1 to 32 letters, digits, - or _ (it starts each session id), got "${replica.text}"`,
    );
  if (replica) limits.replicaId = replica.text;
  return limits;
}

/** Rows of SETTINGS (config.ts), for --help, the READMEs and server.json. */
export const HTTP_SETTINGS = [
  {
    flag: '--max-sessions N',
    env: 'SHIPYARD_MAX_SESSIONS',
    description:
      'HTTP sessions open at most (default 100). A new one past it closes the session idle longest; it gets 503 only when every session runs a call or was opened in the last 10 s',
  },
  {
    flag: '--max-sessions-per-client N',
    env: 'SHIPYARD_MAX_SESSIONS_PER_CLIENT',
    description:
      "HTTP sessions one client may hold (default half of --max-sessions). Its new one past it closes its own session idle longest (429 when none may be closed), never another client's. Clients are told apart by remote address (IPv6 by its /64), not by token, which they all share: behind a proxy every client has the proxy's address, so set it to --max-sessions there",
  },
  {
    flag: '--session-idle-timeout SECONDS',
    env: 'SHIPYARD_SESSION_IDLE_TIMEOUT',
    description:
      'An HTTP session with no request for this long is closed, open GET stream or not (default 600); its client is told to initialize again',
  },
  {
    flag: '--request-timeout SECONDS',
    env: 'SHIPYARD_REQUEST_TIMEOUT',
    description:
      "How long an HTTP request's headers and body may take to arrive; past it the server answers 408 and closes the connection (default 10). Answers (a GET stream, a long call) are not limited",
  },
  {
    flag: '--replica-id ID',
    env: 'SHIPYARD_REPLICA_ID',
    description:
      'Starts every HTTP session id (ID.uuid), so a load balancer can send each session to the replica that holds it (default a random id per process); letters, digits, - and _',
  },
  {
    flag: '--stateless',
    env: 'SHIPYARD_STATELESS',
    description:
      'HTTP without sessions, for replicas behind a load balancer that does not route by session: each POST is served by a protocol server of its own, which offers tools only (no resources, prompts, subscriptions or GET stream) (env: 1, true, yes or on)',
  },
];
