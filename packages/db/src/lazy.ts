/**
 * Defer opening a database until it is first used (or `warmUp` is called), so that a server can answer
 * `initialize` before touching the disk; pair with the definition's `warmUp` so that it opens right after.
 */
export interface LazyDatabase<TDb> {
  /** The drizzle database; opens it on first access. */
  readonly db: TDb;
  /** Open now, if not open yet. Errors (a bad data dir, a failed migration) surface here. */
  warmUp(): void;
  /** Close it if it was opened. */
  close(): void;
}

export function lazyDatabase<TDb>(open: () => { db: TDb; close(): void }): LazyDatabase<TDb> {
  let opened: { db: TDb; close(): void } | undefined;
  const get = () => {
    opened ??= open();
    return opened;
  };
  return {
    get db() {
      return get().db;
    },
    warmUp() {
      get();
    },
    close() {
      opened?.close();
    },
  };
}
