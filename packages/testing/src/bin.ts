import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from './connect.js';

/** What a server's bin says to `--backup FILE` in a data dir that holds no data file (`<server>.db`) yet. */
export function backupWithoutDataFile(
  bin: string,
  server: string,
): { status: number | null; stderr: string; dataFile: string } {
  const dir = mkdtempSync(join(tmpdir(), `shipyard-${server}-backup-`));
  try {
    const run = spawnSync(process.execPath, [bin, '--data-dir', dir, '--backup', join(dir, 'copy.db')], {
      encoding: 'utf8',
    });
    return { status: run.status, stderr: run.stderr, dataFile: join(dir, `${server}.db`) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Preloaded into a server process: writes "loaded pg" to stderr if the process ever loads the pg driver. */
const REPORT_PG_LOAD = `const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'pg') process.stderr.write('loaded pg\\n');
  return load.call(this, request, ...rest);
};
`;

/**
 * Whether a server's bin loads the PostgreSQL driver: started on `dataDir` (SQLite) and making `call`, and
 * started on a database URL nothing listens on (the start fails after loading the driver, so a `true`
 * there shows the probe sees a load).
 */
export async function loadsPostgresDriver(
  bin: string,
  dataDir: string,
  call: { name: string; arguments?: Record<string, unknown> },
): Promise<{ sqlite: boolean; url: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-pg-load-'));
  const hook = join(dir, 'report-pg-load.cjs');
  writeFileSync(hook, REPORT_PG_LOAD);
  const env = { NODE_OPTIONS: `--require ${hook}` };
  try {
    const onSqlite: string[] = [];
    const sqlite = await spawnServer(bin, ['--data-dir', dataDir], { env, stderr: onSqlite });
    try {
      const answer = await sqlite.callTool({ name: call.name, arguments: call.arguments ?? {} });
      if (answer.isError) throw new Error(`${call.name} failed on SQLite: ${JSON.stringify(answer.content)}`);
    } finally {
      await sqlite.close();
    }
    const onUrl: string[] = [];
    const url = await spawnServer(bin, ['--database-url', 'postgres://nobody@127.0.0.1:1/none'], {
      env,
      stderr: onUrl,
    });
    await url.callTool({ name: call.name, arguments: call.arguments ?? {} }).catch(() => {});
    await url.close();
    return { sqlite: onSqlite.join('').includes('loaded pg'), url: onUrl.join('').includes('loaded pg') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
