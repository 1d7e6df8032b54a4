import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from './logger.js';

export interface SessionEntry {
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
   * Ids of its requests on their way to the transport: from the handler's check until the transport has
   * taken their POST (and, from then, holds them itself: transportHolds in sdk-shims.ts).
   */
  arriving: Set<string | number>;
  /** Ids of its requests the transport has taken and not yet answered. */
  unanswered: Set<string | number>;
  /** Answer the requests still running with a shutdown error. */
  shuttingDown: () => Promise<unknown>;
}

/** A session no request or stream is using. */
const idle = (entry: SessionEntry) => entry.streams === 0 && entry.busy === 0;

/**
 * The open HTTP sessions by id, bounded: idle sessions are closed after `idleTimeoutMs`, and the one idle
 * longest makes room for a new one when `maxSessions` are open.
 */
export class SessionTable {
  readonly sessions = new Map<string, SessionEntry>();
  /** Initializes let through and not yet answered: each will take a place, or make room for itself. */
  opening = 0;
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly options: { idleTimeoutMs: number; maxSessions: number; graceMs: number },
    private readonly log: Logger,
  ) {
    this.sweep = setInterval(() => this.closeIdle(), Math.min(options.idleTimeoutMs, 60_000));
    this.sweep.unref();
  }

  get maxSessions(): number {
    return this.options.maxSessions;
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): SessionEntry | undefined {
    return this.sessions.get(id);
  }

  /** Whether there is room for one more session, counting the initializes still being answered. */
  hasRoom(): boolean {
    return this.sessions.size + this.opening + 1 - this.options.maxSessions <= this.closable().length;
  }

  /** Keep a session the transport has opened, closing the idlest first when the table is full. */
  add(id: string, entry: SessionEntry): void {
    if (this.sessions.size >= this.options.maxSessions) this.closeIdlest();
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

  /** Sessions that may be closed to make room: idle, and not just opened. */
  private closable(): [string, SessionEntry][] {
    const now = Date.now();
    return [...this.sessions].filter(
      ([, entry]) => idle(entry) && now - entry.opened >= this.options.graceMs,
    );
  }

  /** Close the session idle longest (no stream, no request, not just opened), to make room for a new one. */
  private closeIdlest(): void {
    let idlest: [string, SessionEntry] | undefined;
    for (const pair of this.closable()) if (!idlest || pair[1].lastSeen < idlest[1].lastSeen) idlest = pair;
    if (!idlest) return;
    this.sessions.delete(idlest[0]);
    idlest[1].transport.close().catch(() => {});
    this.log.info('closed the http session idle longest, to make room for a new one', {
      maxSessions: this.options.maxSessions,
    });
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.options.idleTimeoutMs;
    for (const [id, entry] of this.sessions) {
      if (idle(entry) && entry.lastSeen < cutoff) {
        this.sessions.delete(id);
        entry.transport.close().catch(() => {});
      }
    }
  }
}
