import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { HttpEvent, HttpEvents } from './http-events.js';
import type { Logger } from './logger.js';

export interface SessionEntry {
  transport: StreamableHTTPServerTransport;
  /** Who opened it: the client's address (clientKey in http-guards.ts). */
  client: string;
  /** When it was opened. */
  opened: number;
  /**
   * When its client last sent a request (a POST or DELETE), or one ended. A GET stream is neither: a client
   * that only listens is idle, or a few clients holding streams would keep every place.
   */
  lastSeen: number;
  /** Requests being answered: a session running a long call is not idle. */
  busy: number;
  /**
   * Ids of its requests on their way to the transport: from the handler's check until the transport has
   * taken their POST (and, from then, holds them itself: transportHolds in sdk-shims.ts).
   */
  arriving: Set<string | number>;
  /** Ids of its requests the transport has taken and not yet answered. */
  unanswered: Set<string | number>;
  /** Answer the requests still running with a shutdown error. */
  shuttingDown: () => Promise<unknown>;
}

export interface SessionLimits {
  /** A session with no request for this long is closed, GET stream or not. */
  idleTimeoutMs: number;
  /** Open sessions at most; past it, the one idle longest is closed for a new one. */
  maxSessions: number;
  /** Open sessions of one client at most; past it, that client's own idlest is closed for its new one. */
  maxSessionsPerClient: number;
  /** A session opened less than this long ago is not closed to make room. */
  graceMs: number;
}

/** Why a new session cannot be opened now: every place is taken by a session that may not be closed. */
export type Refusal = 'full' | 'client';

/**
 * The open HTTP sessions by id, bounded: a session with no request for `idleTimeoutMs` is closed, and a new
 * one past `maxSessions` (or past `maxSessionsPerClient` of its client) closes the one idle longest (of its
 * client). A session running a call, or opened within `graceMs`, is never closed to make room.
 */
export class SessionTable {
  readonly sessions = new Map<string, SessionEntry>();
  /** Initializes let through and not yet answered, by client: each will take a place, or make room. */
  private readonly opening = new Map<string, number>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    private readonly events: HttpEvents,
    private readonly log: Logger,
  ) {
    this.sweep = setInterval(
      () => this.closeIdle(),
      Math.max(10, Math.min(limits.idleTimeoutMs / 4, 30_000)),
    );
    this.sweep.unref();
  }

  get maxSessions(): number {
    return this.limits.maxSessions;
  }

  get maxSessionsPerClient(): number {
    return this.limits.maxSessionsPerClient;
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): SessionEntry | undefined {
    return this.sessions.get(id);
  }

  /**
   * Why this client may not open one more session now, counting the initializes still being answered (each
   * of which may close a session), or undefined when it may.
   */
  refusal(client: string): Refusal | undefined {
    const closable = this.closable();
    let opening = 0;
    for (const n of this.opening.values()) opening += n;
    if (this.sessions.size + opening + 1 - this.limits.maxSessions > closable.length) return 'full';
    const own = [...this.sessions.values()].filter((entry) => entry.client === client).length;
    const ownClosable = closable.filter(([, entry]) => entry.client === client).length;
    if (own + (this.opening.get(client) ?? 0) + 1 - this.limits.maxSessionsPerClient > ownClosable)
      return 'client';
    return undefined;
  }

  /** An initialize of this client let through (until `opened`). */
  opens(client: string): void {
    this.opening.set(client, (this.opening.get(client) ?? 0) + 1);
  }

  /** The initialize counted by `opens` has been answered, or refused. */
  opened(client: string): void {
    const n = (this.opening.get(client) ?? 0) - 1;
    if (n > 0) this.opening.set(client, n);
    else this.opening.delete(client);
  }

  /** Keep a session the transport has opened, first closing the idlest of its client, or of all, when full. */
  add(id: string, entry: SessionEntry): void {
    const own = [...this.sessions.values()].filter((other) => other.client === entry.client).length;
    if (own >= this.limits.maxSessionsPerClient) this.closeIdlest('closedForClient', entry.client);
    if (this.sessions.size >= this.limits.maxSessions) this.closeIdlest('closedForRoom');
    this.sessions.set(id, entry);
    this.log.debug('http session opened', { sessions: this.sessions.size });
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  /** Stop sweeping and close every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.allSettled([...this.sessions.values()].map((entry) => entry.transport.close()));
    this.sessions.clear();
  }

  /** Stop sweeping (the server is closing). */
  stopSweeping(): void {
    clearInterval(this.sweep);
  }

  /** Sessions that may be closed to make room: running no call, and not just opened. */
  private closable(): [string, SessionEntry][] {
    const now = Date.now();
    return [...this.sessions].filter(
      ([, entry]) => entry.busy === 0 && now - entry.opened >= this.limits.graceMs,
    );
  }

  /** Close the closable session (of this client, if given) idle longest, to make room for a new one. */
  private closeIdlest(why: HttpEvent, client?: string): void {
    let idlest: [string, SessionEntry] | undefined;
    for (const pair of this.closable()) {
      if (client !== undefined && pair[1].client !== client) continue;
      if (!idlest || pair[1].lastSeen < idlest[1].lastSeen) idlest = pair;
    }
    if (idlest) this.close(idlest[0], idlest[1], why);
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.limits.idleTimeoutMs;
    for (const [id, entry] of this.sessions) {
      if (entry.busy === 0 && entry.lastSeen < cutoff) this.close(id, entry, 'closedIdle');
    }
  }

  /** Its client learns at its next request, which gets 404 and is told to initialize again. */
  private close(id: string, entry: SessionEntry, why: HttpEvent): void {
    this.sessions.delete(id);
    entry.transport.close().catch(() => {});
    this.events.count(why);
  }
}
