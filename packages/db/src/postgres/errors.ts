import { Conflict, InvalidInput, type ShipyardError } from '@shipyard/core';

/**
 * PostgreSQL's errors a caller can act on, by SQLSTATE. The transaction that hit one was rolled back whole,
 * so nothing of the failed call was written. Nothing here leaks the URL or SQL text.
 */
const BY_STATE: Record<string, () => ShipyardError> = {
  // serialization_failure, deadlock_detected, lock_not_available
  '40001': () =>
    new Conflict('Another write to the same data got there first', {
      hint: 'Nothing was changed; read it again and retry the call',
    }),
  '40P01': () =>
    new Conflict('Two writes waited on each other and this one was stopped', {
      hint: 'Nothing was changed; retry the call',
    }),
  // character_not_in_repertoire: text with a NUL character, which PostgreSQL's text cannot hold
  '22021': () =>
    new InvalidInput('The text holds a NUL character (\\0), which the database cannot store', {
      hint: 'Remove the NUL characters and retry',
    }),
  // program_limit_exceeded: a value past one of PostgreSQL's limits (a text too long to index, say)
  '54000': () =>
    new InvalidInput('A value is too large for the database to store or index', {
      hint: 'Shorten the longest text and retry',
    }),
  '55P03': () =>
    new Conflict('The data is locked by another write', {
      hint: 'Nothing was changed; retry the call in a few seconds',
    }),
};

/** The ShipyardError for an error `pg` threw, or undefined for any other error (it stays an internal one). */
export function postgresErrors(error: unknown): ShipyardError | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return BY_STATE[code]?.();
}
