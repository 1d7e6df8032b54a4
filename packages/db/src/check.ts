import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { damageAdvice, isDamage } from './damage.js';
import { resolveDataDir } from './data-dir.js';

/** At most this many problems are listed: one is enough to know a file is damaged. */
const MAX_PROBLEMS = 20;

/** What SQLite's `integrity_check` or `quick_check` found: no problems means the file is sound. */
export interface CheckResult {
  /** Absolute path of the file checked. */
  file: string;
  ok: boolean;
  /** SQLite's lines, one per problem (at most 20). */
  problems: string[];
}

/** The rows of `PRAGMA integrity_check` / `quick_check`: one `ok`, or the problems. */
function problemsOf(rows: unknown[]): string[] {
  const lines = rows.map((row) => String(Object.values(row as Record<string, unknown>)[0]));
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines;
}

/**
 * Runs `PRAGMA integrity_check` on one server's data file (`<dataDir>/<server>.db`), read-only: the file is
 * neither created nor changed. A file SQLite cannot read as a database at all is one problem. Throws when
 * the file does not exist or cannot be opened.
 */
export function checkDatabase(options: { server: string; dataDir?: string | undefined }): CheckResult {
  const file = path.join(resolveDataDir(options.dataDir), `${options.server}.db`);
  if (!fs.existsSync(file)) throw new Error(`${file} does not exist: there is no data file to check`);
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(file, { readonly: true, fileMustExist: true });
    const problems = problemsOf(sqlite.pragma(`integrity_check(${MAX_PROBLEMS})`) as unknown[]);
    return { file, ok: problems.length === 0, problems };
  } catch (error) {
    if (!isDamage((error as { code?: unknown }).code)) throw error;
    return { file, ok: false, problems: [(error as Error).message] };
  } finally {
    sqlite?.close();
  }
}

/** The report `--check` prints: ok, or the problems and what to do about them. */
export function checkReport(result: CheckResult): string {
  if (result.ok) return `${result.file}: ok (integrity_check found no problems)`;
  return [
    `${result.file}: damaged; integrity_check found:`,
    ...result.problems.map((line) => `  ${line}`),
    `Do not start the server with this file: ${damageAdvice(result.file)}.`,
  ].join('\n');
}

// Runs in a worker thread, on its own read-only connection: the check blocks that thread, not the server.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  parentPort.postMessage({ rows: db.pragma('quick_check(${MAX_PROBLEMS})') });
} catch (error) {
  parentPort.postMessage({ error: { code: error.code, message: error.message } });
} finally {
  if (db) db.close();
}
`;

/** What a background check reports: the problems found (none when sound), or why it could not run. */
export type QuickCheckOutcome = { problems: string[] } | { failed: string };

/**
 * Runs SQLite's `quick_check` on a file in a worker thread and hands `done` what it found; a file SQLite
 * cannot read as a database is one problem. `stop()` ends the check early (on close), and `done` is not called.
 */
export function quickCheckInBackground(
  file: string,
  done: (outcome: QuickCheckOutcome) => void,
): { stop(): void } {
  let stopped = false;
  const finish = (outcome: QuickCheckOutcome) => {
    if (stopped) return;
    stopped = true;
    void worker.terminate();
    done(outcome);
  };
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { sqlite, file } });
  worker.unref();
  worker.once('message', (message: { rows?: unknown[]; error?: { code?: string; message: string } }) => {
    if (message.rows) finish({ problems: problemsOf(message.rows) });
    else if (isDamage(message.error?.code)) finish({ problems: [String(message.error?.message)] });
    else finish({ failed: `${message.error?.code ?? 'error'}: ${message.error?.message}` });
  });
  worker.once('error', (error) => finish({ failed: error.message }));
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      void worker.terminate();
    },
  };
}

/** `--check` of every server (runServer's `check`): {@link checkDatabase} on its data file, and the report. */
export function checkDataFile(request: { server: string; dataDir: string | undefined }): {
  ok: boolean;
  report: string;
} {
  const result = checkDatabase(request);
  return { ok: result.ok, report: checkReport(result) };
}
