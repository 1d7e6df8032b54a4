import type { Logger } from './logger.js';

/** What the HTTP transport counts rather than logs one line each: requests cut short, sessions it closed. */
export type HttpEvent =
  | 'aborted'
  | 'timedOut'
  | 'malformed'
  | 'closedIdle'
  | 'closedForRoom'
  | 'closedForClient';

const WORDS: Record<HttpEvent, (n: number) => string> = {
  aborted: (n) => `${n} ${n === 1 ? 'request' : 'requests'} cut off by the client before arriving whole`,
  timedOut: (n) => `${n} ${n === 1 ? 'request' : 'requests'} not arrived within the request timeout, closed`,
  malformed: (n) => `${n} malformed ${n === 1 ? 'request' : 'requests'} refused`,
  closedIdle: (n) => `${n} ${n === 1 ? 'session' : 'sessions'} closed after the idle timeout`,
  closedForRoom: (n) => `${n} ${n === 1 ? 'session' : 'sessions'} closed to make room for new ones`,
  closedForClient: (n) =>
    `${n} ${n === 1 ? 'session' : 'sessions'} closed for a new one of the same client, at its cap`,
};

/**
 * Counts of HTTP events, written as one summary line per interval (from the first event after the last
 * summary) and at close: a flood of aborted uploads or evictions costs one line, not one each.
 */
export class HttpEvents {
  private counts = new Map<HttpEvent, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  count(event: HttpEvent): void {
    this.counts.set(event, (this.counts.get(event) ?? 0) + 1);
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Write the summary of what was counted since the last one, if anything was. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size === 0) return;
    const counts = Object.fromEntries(this.counts);
    const text = [...this.counts].map(([event, n]) => WORDS[event](n)).join('; ');
    this.counts = new Map();
    this.log.info(`http: ${text}`, counts);
  }
}
