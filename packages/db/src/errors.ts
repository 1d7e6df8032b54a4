import path from 'node:path';
import { Conflict, ShipyardError, Upstream } from '@shipyard/core';
import { isDamage, isFull } from './damage.js';

/** The data file an error concerns, by name only: answers never carry a path (the log has it). */
function fileName(error: unknown, otherwise: string): string {
  const { file, path: written } = error as { file?: unknown; path?: unknown };
  const named = typeof file === 'string' ? file : written;
  return typeof named === 'string' ? path.basename(named) : otherwise;
}

/** The command that checks a data file, from its name (`tickets.db` is checked by shipyard-tickets). */
function checkCommand(name: string): string {
  const server = /^([a-z][a-z0-9-]*)\.db$/.exec(name)?.[1];
  return server ? `shipyard-${server} --check` : 'the server with --check';
}

/**
 * SQLite's errors a caller can act on, by result code (an extended code, `SQLITE_BUSY_SNAPSHOT`, starts with
 * its primary one). Each says what happened and what to do; nothing here leaks a path or SQL text.
 */
const BY_CODE: ReadonlyArray<
  [matches: (code: string) => boolean, toError: (error: unknown) => ShipyardError]
> = [
  [
    // Another process held the write lock longer than busy_timeout. SQLite applies a statement or a
    // transaction whole or not at all, so nothing of the failed call was written.
    (code) => code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'),
    () =>
      new Conflict(
        'The database is busy: another process using the same data directory held its write lock too long',
        { hint: 'Nothing was changed; retry the call in a few seconds' },
      ),
  ],
  [
    // The file is damaged: the connection now refuses writes (DamageGuard); reads of sound pages go on.
    isDamage,
    (error) => {
      const name = fileName(error, "the server's data file");
      return new ShipyardError(
        'internal',
        `The data file ${name} is damaged, so this server refuses every write until it is restarted with a sound file`,
        {
          hint: `Reads may still work. Stop the server, restore ${name} from a backup, and run ${checkCommand(name)} to verify a file before starting with it`,
          cause: error,
        },
      );
    },
  ],
  [
    // A statement that fails for want of room is undone whole, as is the transaction around it.
    (code) => isFull(code) || code === 'ENOSPC',
    (error) =>
      new Upstream(
        `The disk holding ${fileName(error, 'the data directory')} is full: nothing was saved, and the call can be retried once there is room`,
        { hint: 'Free space on that disk, then retry the call', cause: error },
      ),
  ],
];

/**
 * The ShipyardError for an error better-sqlite3 threw (or a full disk, `ENOSPC`, from any file write), or
 * undefined for any other error (it stays an internal one). Given to core as a server's `mapError`:
 * `defineServer({ …, mapError: sqliteErrors })`.
 */
export function sqliteErrors(error: unknown): ShipyardError | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string' || !(code.startsWith('SQLITE_') || code === 'ENOSPC')) return undefined;
  const found = BY_CODE.find(([matches]) => matches(code));
  return found?.[1](error);
}
