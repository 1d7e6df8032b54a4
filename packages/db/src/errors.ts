import { Conflict, type ShipyardError } from '@shipyard/core';

/**
 * SQLite's errors a caller can act on, by result code (an extended code, `SQLITE_BUSY_SNAPSHOT`, starts with
 * its primary one). Each says what happened and what to do; nothing here leaks a path or SQL text.
 */
const BY_CODE: ReadonlyArray<[prefix: string, toError: () => ShipyardError]> = [
  [
    // Another process held the write lock longer than busy_timeout. SQLite applies a statement or a
    // transaction whole or not at all, so nothing of the failed call was written.
    'SQLITE_BUSY',
    () =>
      new Conflict(
        'The database is busy: another process using the same data directory held its write lock too long',
        { hint: 'Nothing was changed; retry the call in a few seconds' },
      ),
  ],
];

/**
 * The ShipyardError for an error better-sqlite3 threw, or undefined for any other error (it stays an
 * internal one). Given to core as a server's `mapError`: `defineServer({ …, mapError: sqliteErrors })`.
 */
export function sqliteErrors(error: unknown): ShipyardError | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const found = BY_CODE.find(([prefix]) => code === prefix || code.startsWith(`${prefix}_`));
  return found?.[1]();
}
