import { createLogger, defineServer, defineTool, isShipyardError, Runtime, z } from '@shipyard/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type ShipyardDatabase, sqliteErrors } from '../src/index.js';
import { tempDir } from './helpers.js';

let database: ShipyardDatabase | undefined;
let holder: Database.Database | undefined;
afterEach(() => {
  holder?.close();
  database?.close();
  holder = undefined;
  database = undefined;
});

/** What better-sqlite3 throws when another connection holds the write lock past busy_timeout. */
function busyError(): unknown {
  database = openDatabase({ server: 'tickets', dataDir: tempDir(), busyTimeoutMs: 0 });
  database.sqlite.exec('CREATE TABLE t (x)');
  holder = new Database(database.path);
  holder.exec('BEGIN IMMEDIATE');
  try {
    database.sqlite.exec('INSERT INTO t VALUES (1)');
  } catch (error) {
    return error;
  }
  throw new Error('the write did not wait for the lock');
}

describe('sqliteErrors', () => {
  it('turns SQLITE_BUSY (and its extended codes) into a conflict to retry', () => {
    const error = busyError();
    expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
    const mapped = sqliteErrors(error);
    expect(isShipyardError(mapped)).toBe(true);
    expect(mapped?.code).toBe('conflict');
    expect(mapped?.message).toMatch(/database is busy/);
    expect(mapped?.hint).toMatch(/Nothing was changed; retry/);
    expect(sqliteErrors(Object.assign(new Error('x'), { code: 'SQLITE_BUSY_SNAPSHOT' }))?.code).toBe(
      'conflict',
    );
  });

  it('leaves any other error alone', () => {
    for (const error of [
      new Error('plain'),
      Object.assign(new Error('x'), { code: 'SQLITE_BUSYNESS' }),
      Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      Object.assign(new Error('x'), { code: 'EACCES' }),
      'a string',
      null,
      undefined,
    ]) {
      expect(sqliteErrors(error)).toBe(undefined);
    }
  });

  it('as a server mapError, answers a tool call that met the lock as a conflict, logged as a warning', async () => {
    const error = busyError();
    const logs: string[] = [];
    const definition = defineServer({
      name: 'locked',
      version: '0.0.0',
      deps: {},
      tools: [
        defineTool({
          name: 'write_it',
          title: 'Write it',
          description: 'Write a row; for tests of the busy mapping.',
          input: {},
          output: { ok: z.boolean() },
          annotations: {
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: false,
          },
          handler: () => {
            throw error;
          },
        }),
      ],
      mapError: sqliteErrors,
    });
    const logger = createLogger('locked', { level: 'debug', write: (line) => logs.push(line) });
    const runtime = new Runtime(definition, { logger });
    const result = await runtime.callTool('write_it', {});
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text).error).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/busy/),
    });
    expect(logs.join('')).toMatch(/ warn .*tool write_it: The database is busy/);
    expect(logs.join('')).not.toContain(' error ');
    await runtime.close();
  });
});
