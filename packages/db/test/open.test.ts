import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_BUSY_TIMEOUT_MS, migrate, openDatabase } from '../src/index.js';
import { aboutAddon } from '../src/open.js';
import { MIGRATIONS, modeOf, tempDir } from './helpers.js';

const projects = sqliteTable('projects', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
});

describe('openDatabase', () => {
  it('creates the data dir and each missing folder above it with mode 0700, the file <dataDir>/<server>.db', () => {
    const dataDir = path.join(tempDir(), 'a', 'b', 'shipyard');
    const database = openDatabase({ server: 'tickets', dataDir });
    try {
      expect(database.path).toBe(path.join(dataDir, 'tickets.db'));
      expect(fs.existsSync(database.path)).toBe(true);
      expect(modeOf(dataDir)).toBe(0o700);
      // The parents it created (like ~/.local/share) are private too, as the XDG spec asks.
      expect(modeOf(path.dirname(dataDir))).toBe(0o700);
      expect(modeOf(path.dirname(path.dirname(dataDir)))).toBe(0o700);
    } finally {
      database.close();
    }
  });

  it('forces 0700 on every folder it creates even under a permissive umask, and leaves the ones that exist', () => {
    const previous = process.umask(0);
    try {
      const root = tempDir();
      fs.chmodSync(root, 0o755);
      const dataDir = path.join(root, 'x', 'y', 'loose');
      openDatabase({ server: 'tickets', dataDir }).close();
      for (const folder of [dataDir, path.dirname(dataDir), path.join(root, 'x')])
        expect(modeOf(folder), folder).toBe(0o700);
      expect(modeOf(root)).toBe(0o755);
    } finally {
      process.umask(previous);
    }
  });

  it('leaves an existing data dir as it is, without a warning when others cannot write it', () => {
    const dataDir = path.join(tempDir(), 'existing');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      openDatabase({ server: 'tickets', dataDir }).close();
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
    expect(modeOf(dataDir)).toBe(0o755);
  });

  it('warns once on stderr about an existing data dir every user can write, and still opens it', () => {
    const dataDir = path.join(tempDir(), 'shared dir');
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o777);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      for (let i = 0; i < 3; i += 1) {
        const database = openDatabase({ server: 'tickets', dataDir });
        database.sqlite.exec('CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)');
        database.close();
      }
      expect(stderr).toHaveBeenCalledTimes(1);
      const line = String(stderr.mock.calls[0]?.[0]);
      expect(line).toMatch(/^shipyard-tickets: warning: /);
      expect(line).toContain(`chmod 700 '${dataDir}'`);
      expect(line.trimEnd().split('\n')).toHaveLength(1);
    } finally {
      stderr.mockRestore();
    }
    // Left as it is: the owner decides.
    expect(modeOf(dataDir)).toBe(0o777);
  });

  it('creates the database file, its -wal and -shm for the owner only (0600), whatever the umask', () => {
    const previous = process.umask(0o022);
    try {
      const dataDir = path.join(tempDir(), 'private');
      const database = openDatabase({ server: 'tickets', dataDir });
      try {
        database.sqlite.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
        for (const suffix of ['', '-wal', '-shm'])
          expect(modeOf(`${database.path}${suffix}`), suffix).toBe(0o600);
      } finally {
        database.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('says so when the data dir is a file', () => {
    const dataDir = path.join(tempDir(), 'a-file');
    fs.writeFileSync(dataDir, 'not a directory');
    expect(() => openDatabase({ server: 'tickets', dataDir })).toThrow(
      `The data directory ${dataDir} is a file, not a directory; pass --data-dir a directory`,
    );
  });

  it("names the file in SQLite's errors, keeping their code", () => {
    // `$&` in the path: named as it is, not as a replacement pattern would expand it.
    const dataDir = path.join(tempDir(), 'data $& more');
    fs.mkdirSync(dataDir);
    const file = path.join(dataDir, 'tickets.db');
    fs.writeFileSync(file, Buffer.alloc(4096, 7));
    let caught: unknown;
    try {
      openDatabase({ server: 'tickets', dataDir });
    } catch (error) {
      caught = error;
    }
    // Not a database is a damaged file: the message says what to do, naming the command that checks one.
    const said =
      `${file}: file is not a database: the file is damaged; restore tickets.db from a backup, and run ` +
      'shipyard-tickets --check to verify a file before starting the server with it';
    expect((caught as Error).message).toBe(said);
    expect((caught as { code?: string }).code).toBe('SQLITE_NOTADB');
    // SQLite's own error, with its stack from where it was thrown.
    expect((caught as Error).name).toBe('SqliteError');
    const stack = (caught as Error).stack ?? '';
    expect(stack.startsWith(`SqliteError: ${said}\n`)).toBe(true);
    expect(stack).toMatch(/\n\s+at /);
  });

  it('says so when the data dir is a symbolic link to nothing', () => {
    const dataDir = path.join(tempDir(), 'link');
    const gone = path.join(tempDir(), 'gone');
    fs.symlinkSync(gone, dataDir);
    expect(() => openDatabase({ server: 'tickets', dataDir })).toThrow(
      `The data directory ${dataDir} is a symbolic link to ${gone}, which does not exist; create ${gone} or pass --data-dir a directory`,
    );
    // A relative target is named from the link's folder.
    const relative = path.join(tempDir(), 'relative-link');
    fs.symlinkSync('../nowhere', relative);
    const target = path.resolve(path.dirname(relative), '../nowhere');
    expect(() => openDatabase({ server: 'tickets', dataDir: relative })).toThrow(
      `symbolic link to ${target},`,
    );
  });

  it('resolves the data dir from SHIPYARD_DATA_DIR when none is given', () => {
    const dataDir = path.join(tempDir(), 'from-env');
    vi.stubEnv('SHIPYARD_DATA_DIR', dataDir);
    try {
      const database = openDatabase({ server: 'sprint' });
      database.close();
      expect(database.path).toBe(path.join(dataDir, 'sprint.db'));
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('sets WAL, busy_timeout, foreign_keys and synchronous = NORMAL', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      const { sqlite } = database;
      expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(sqlite.pragma('busy_timeout', { simple: true })).toBe(DEFAULT_BUSY_TIMEOUT_MS);
      expect(DEFAULT_BUSY_TIMEOUT_MS).toBe(5000);
      expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(sqlite.pragma('synchronous', { simple: true })).toBe(1);
    } finally {
      database.close();
    }
  });

  it('takes busyTimeoutMs', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir(), busyTimeoutMs: 1234 });
    try {
      expect(database.sqlite.pragma('busy_timeout', { simple: true })).toBe(1234);
    } finally {
      database.close();
    }
    expect(() => openDatabase({ server: 'tickets', memory: true, busyTimeoutMs: -1 })).toThrow(
      /busyTimeoutMs/,
    );
    expect(() => openDatabase({ server: 'tickets', memory: true, busyTimeoutMs: 1.5 })).toThrow(
      /busyTimeoutMs/,
    );
  });

  it('enforces foreign keys', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      migrate(database, MIGRATIONS);
      const insert = database.sqlite.prepare(
        'INSERT INTO items (project_id, counter, writer) VALUES (?, ?, ?)',
      );
      expect(() => insert.run(999, 1, 'test')).toThrow(
        expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }),
      );
    } finally {
      database.close();
    }
  });

  it('opens an in-memory database for dataDir ":memory:" or memory: true', () => {
    const cwdEntries = fs.readdirSync('.');
    for (const options of [
      { dataDir: ':memory:' },
      { memory: true },
      { memory: true, dataDir: '/nonexistent/x' },
    ]) {
      const database = openDatabase({ server: 'tickets', ...options });
      try {
        expect(database.path).toBe(':memory:');
        expect(database.sqlite.memory).toBe(true);
        expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
        expect(database.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
        migrate(database, MIGRATIONS);
        database.sqlite.prepare("INSERT INTO projects (key, name) VALUES ('A', 'a')").run();
        expect(database.sqlite.prepare('SELECT count(*) FROM projects').pluck().get()).toBe(1);
      } finally {
        database.close();
      }
    }
    expect(fs.existsSync('/nonexistent')).toBe(false);
    expect(fs.readdirSync('.')).toEqual(cwdEntries);
  });

  it('rejects a bad server name with a clear error', () => {
    const bad = [
      '',
      'a',
      'Tickets',
      '1tickets',
      '-x',
      'tick_ets',
      'a/b',
      '../etc',
      'tickets.db',
      'x'.repeat(32),
      ' ab',
    ];
    for (const server of bad) {
      expect(() => openDatabase({ server, memory: true }), server).toThrow(/Invalid server name/);
    }
    expect(() => openDatabase({ server: undefined as unknown as string, memory: true })).toThrow(
      /Invalid server name/,
    );
    for (const server of ['ab', 'tickets', 'a-1', `a${'b'.repeat(30)}`]) {
      openDatabase({ server, memory: true }).close();
    }
  });

  it('close() is idempotent', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    database.close();
    expect(database.sqlite.open).toBe(false);
    expect(() => database.close()).not.toThrow();
  });

  it('gives drizzle the schema for relational queries', () => {
    const database = openDatabase({ server: 'tickets', memory: true, schema: { projects } });
    try {
      migrate(database, MIGRATIONS);
      database.db.insert(projects).values({ key: 'SHIP', name: 'Shipyard' }).run();
      expect(database.db.query.projects.findMany().sync()).toEqual([
        { id: 1, key: 'SHIP', name: 'Shipyard' },
      ]);
    } finally {
      database.close();
    }
  });

  it('opens an existing file read-only', () => {
    const dataDir = tempDir();
    const writer = openDatabase({ server: 'tickets', dataDir });
    migrate(writer, MIGRATIONS);
    writer.close();

    const reader = openDatabase({ server: 'tickets', dataDir, readonly: true });
    try {
      expect(reader.sqlite.readonly).toBe(true);
      expect(reader.sqlite.prepare('SELECT count(*) FROM projects').pluck().get()).toBe(0);
      expect(() => reader.sqlite.prepare("INSERT INTO projects (key, name) VALUES ('A', 'a')").run()).toThrow(
        expect.objectContaining({ code: 'SQLITE_READONLY' }),
      );
    } finally {
      reader.close();
    }
  });

  it('refuses read-only on a missing file (without creating the dir) or in memory', () => {
    const dataDir = path.join(tempDir(), 'missing');
    expect(() => openDatabase({ server: 'tickets', dataDir, readonly: true })).toThrow(/does not exist/);
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(() => openDatabase({ server: 'tickets', memory: true, readonly: true })).toThrow(/read-only/);
  });
});

describe('statement cache', () => {
  const items = sqliteTable('items', { id: integer('id').primaryKey(), name: text('name').notNull() });

  function openItems(statementCache?: number) {
    const database = openDatabase({
      server: 'cache',
      memory: true,
      ...(statementCache === undefined ? {} : { statementCache }),
    });
    database.sqlite.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');
    database.sqlite.exec("INSERT INTO items (name) VALUES ('a'), ('b')");
    return database;
  }

  it('reuses the compiled statement for the same SQL text', () => {
    const { sqlite, close } = openItems();
    expect(sqlite.prepare('SELECT name FROM items')).toBe(sqlite.prepare('SELECT name FROM items'));
    expect(sqlite.prepare('SELECT id FROM items')).not.toBe(sqlite.prepare('SELECT name FROM items'));
    close();
  });

  it('resets a reused statement to plain rows after drizzle used it in raw mode', () => {
    const { db, sqlite, close } = openItems();
    const query = db.select({ id: items.id, name: items.name }).from(items).orderBy(items.id);
    expect(query.all()).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    // The same SQL text through a path that expects objects, after drizzle switched it to raw mode.
    const text = query.toSQL().sql;
    expect(sqlite.prepare(text).all()).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    sqlite.prepare(text).pluck();
    expect(sqlite.prepare(text).get()).toEqual({ id: 1, name: 'a' });
    expect(query.all()).toHaveLength(2);
    close();
  });

  it('keeps at most statementCache statements, dropping the least recently used', () => {
    const { sqlite, close } = openItems(2);
    const a = sqlite.prepare('SELECT 1');
    const b = sqlite.prepare('SELECT 2');
    expect(sqlite.prepare('SELECT 1')).toBe(a);
    sqlite.prepare('SELECT 3');
    expect(sqlite.prepare('SELECT 1')).toBe(a);
    expect(sqlite.prepare('SELECT 2')).not.toBe(b);
    close();
  });

  it('can be turned off', () => {
    const { sqlite, close } = openItems(0);
    expect(sqlite.prepare('SELECT 1')).not.toBe(sqlite.prepare('SELECT 1'));
    close();
  });
});

describe('aboutAddon', () => {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));

  it("says how to build SQLite's native module when it was never built, naming where", () => {
    // The error better-sqlite3's loader (bindings) throws when the module is not where it looks.
    const bindings = createRequire(path.join(packageDir, 'package.json'))('bindings') as (
      opts: object,
    ) => unknown;
    let thrown: unknown;
    try {
      bindings({ bindings: 'not_built.node', module_root: packageDir });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as Error).message).toMatch(/^Could not locate the bindings file/);
    const mended = aboutAddon(thrown) as Error;
    const installed = path.dirname(path.dirname(packageDir));
    expect(mended.message).toBe(
      `SQLite's native module (better-sqlite3) is not built (its install script did not run): run \`npm rebuild better-sqlite3\` in ${installed}`,
    );
    expect(mended.cause).toBe(thrown);
  });

  it('says so when the module was built for another Node.js, and leaves other errors alone', () => {
    const dlopen = new Error(
      "The module '/home/u/.npm/_npx/1a2b/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
        'was compiled against a different Node.js version using\nNODE_MODULE_VERSION 108. This version of ' +
        'Node.js requires\nNODE_MODULE_VERSION 115. Please try re-compiling or re-installing\nthe module.',
    );
    expect((aboutAddon(dlopen) as Error).message).toBe(
      `SQLite's native module (better-sqlite3) was built for another Node.js than this one (${process.version}): run \`npm rebuild better-sqlite3\` in /home/u/.npm/_npx/1a2b`,
    );
    // A folder with spaces, as macOS's Application Support, is named whole.
    const spaced = new Error(
      'Could not locate the bindings file. Tried:\n → /Users/John Smith/Library/Application Support/Claude/x/node_modules/better-sqlite3/build/better_sqlite3.node\n → /Users/John Smith/Library/Application Support/Claude/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node',
    );
    expect((aboutAddon(spaced) as Error).message).toMatch(
      / in \/Users\/John Smith\/Library\/Application Support\/Claude\/x$/,
    );
    const windows = new Error(
      "The module 'C:\\Users\\John Smith\\AppData\\Roaming\\x\\node_modules\\better-sqlite3\\build\\Release\\better_sqlite3.node'\nwas compiled against a different Node.js version using NODE_MODULE_VERSION 108.",
    );
    expect((aboutAddon(windows) as Error).message).toMatch(/ in C:\\Users\\John Smith\\AppData\\Roaming\\x$/);
    const other = new Error('SQLITE_CANTOPEN: unable to open database file');
    expect(aboutAddon(other)).toBe(other);
    expect(aboutAddon('text')).toBe('text');
  });
});
