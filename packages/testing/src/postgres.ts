/**
 * PostgreSQL for tests: a throwaway cluster (initdb + pg_ctl on a free port, its socket in a temp dir), or
 * the server `SHIPYARD_TEST_DATABASE_URL` names; and a fresh database per test on either.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type TestEngine = 'sqlite' | 'postgres';

/** The engine a server's suite runs on: `SHIPYARD_TEST_DB=sqlite|postgres`, SQLite when unset. */
export function testEngine(env: NodeJS.ProcessEnv = process.env): TestEngine {
  const value = (env.SHIPYARD_TEST_DB ?? '').trim().toLowerCase() || 'sqlite';
  if (value !== 'sqlite' && value !== 'postgres') {
    throw new Error(`SHIPYARD_TEST_DB must be sqlite or postgres, got "${value}"`);
  }
  return value;
}

/** The folder of initdb and pg_ctl: on the PATH, else the newest of Debian's /usr/lib/postgresql/N/bin. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const versions = readdirSync(debian)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(debian, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(debian, versions[0], 'bin') : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * initdb refuses to run as root. Run as root, the cluster's programs run as the `postgres` user Debian's
 * packages make (or `nobody`), through runuser; the temp dir is handed to that user.
 */
async function runAs(): Promise<{ user: string; uid: number; gid: number } | undefined> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number((await run('id', ['-u', user])).stdout.trim());
      const gid = Number((await run('id', ['-g', user])).stdout.trim());
      return { user, uid, gid };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error(
    'Tests run as root, and initdb refuses root, but there is no postgres or nobody user to run it as: ' +
      'create one, or set SHIPYARD_TEST_DATABASE_URL to a PostgreSQL server to use',
  );
}

export interface TestCluster {
  /** URL of the cluster's `postgres` database, as a superuser. */
  url: string;
  /** Stops the cluster and removes its files; a no-op for a server given by SHIPYARD_TEST_DATABASE_URL. */
  stop(): Promise<void>;
}

/**
 * The PostgreSQL server tests use: the one `SHIPYARD_TEST_DATABASE_URL` names, else a new cluster in a temp
 * dir on a free loopback port, with durability off (a test's data need not survive a crash).
 */
export async function startPostgres(env: NodeJS.ProcessEnv = process.env): Promise<TestCluster> {
  const given = env.SHIPYARD_TEST_DATABASE_URL?.trim();
  if (given) return { url: given, stop: async () => {} };
  const bin = postgresBinDir(env);
  if (!bin) {
    throw new Error(
      'SHIPYARD_TEST_DB=postgres needs PostgreSQL: initdb and pg_ctl are on neither the PATH nor ' +
        '/usr/lib/postgresql/N/bin. Install the postgresql package (apt-get install postgresql), or set ' +
        'SHIPYARD_TEST_DATABASE_URL to a server to use',
    );
  }
  const owner = await runAs();
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-pg-'));
  const data = join(dir, 'data');
  const as = (program: string, args: string[]) =>
    owner
      ? run('runuser', ['-u', owner.user, '--', join(bin, program), ...args])
      : run(join(bin, program), args);
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid);
    await as('initdb', [
      '-D',
      data,
      '-U',
      'shipyard',
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await freePort();
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 300',
        '',
      ].join('\n'),
    );
    await as('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://shipyard@127.0.0.1:${port}/postgres`,
      stop() {
        stopped ??= as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
          .then(() => undefined)
          .finally(() => rmSync(dir, { recursive: true, force: true }));
        return stopped;
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const { stderr } = error as { stderr?: string };
    throw new Error(`Could not start a throwaway PostgreSQL cluster: ${stderr?.trim() || String(error)}`, {
      cause: error,
    });
  }
}

export interface FreshDatabase {
  /** URL of the new, empty database. */
  url: string;
  /** Drops it (closing what is still connected to it). */
  drop(): Promise<void>;
}

/** A new, empty database on the server `serverUrl` names, for one test. */
export async function freshDatabase(serverUrl: string): Promise<FreshDatabase> {
  const { default: pg } = await import('pg');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The URL of the tests' PostgreSQL server, set by {@link postgresGlobalSetup}; throws when unset. */
export function testDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.SHIPYARD_TEST_DATABASE_URL?.trim();
  if (!url) {
    throw new Error(
      "No PostgreSQL for the tests: add postgresGlobalSetup to the package's vitest globalSetup, or set SHIPYARD_TEST_DATABASE_URL",
    );
  }
  return url;
}

/**
 * Databases standing for data dirs, on the test cluster: servers on one data dir share one database, as
 * processes on one SQLite file do; undefined or ':memory:' gets a new one each time. `dropAll` drops them.
 */
export function dataDirDatabases(): { urlFor(dataDir?: string): Promise<string>; dropAll(): Promise<void> } {
  const databases = new Map<string, Promise<FreshDatabase>>();
  let fresh = 0;
  return {
    async urlFor(dataDir) {
      const key = dataDir === undefined || dataDir === ':memory:' ? `:fresh:${fresh++}` : dataDir;
      let database = databases.get(key);
      if (!database) {
        database = freshDatabase(testDatabaseUrl());
        databases.set(key, database);
      }
      return (await database).url;
    },
    async dropAll() {
      const made = [...databases.values()];
      databases.clear();
      for (const database of made) await (await database).drop();
    },
  };
}
