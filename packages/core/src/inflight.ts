import type { Logger } from './logger.js';

/** The requests being answered, so that a shutdown can wait for them (bounded). */
export class Inflight {
  private readonly promises = new Set<Promise<unknown>>();

  track<T>(promise: Promise<T>): Promise<T> {
    this.promises.add(promise);
    const done = () => this.promises.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** Wait until none is left or `drainMs` has passed; requests that arrive meanwhile are waited for too. */
  async drain(drainMs: number, log: Logger): Promise<void> {
    if (this.promises.size === 0) return;
    log.info('waiting for in-flight calls', { count: this.promises.size });
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        expired = true;
        resolve();
      }, drainMs);
    });
    while (this.promises.size > 0 && !expired) {
      await Promise.race([Promise.allSettled([...this.promises]), deadline]);
    }
    clearTimeout(timer);
  }
}
