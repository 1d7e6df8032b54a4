import fs from 'node:fs';
import path from 'node:path';
import { migrate as drizzleMigrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, type ShipyardDatabase, transaction } from '../src/index.js';
import { MIGRATIONS, tempDir } from './helpers.js';

function tables(database: ShipyardDatabase): string[] {
  return database.sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
}

function applied(database: ShipyardDatabase): number {
  return database.sqlite.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get() as number;
}

/** A copy of the fixture migrations with one more migration appended to the journal. */
function withExtraMigration(tag: string, sqlText: string): string {
  const folder = path.join(tempDir(), 'migrations');
  fs.cpSync(MIGRATIONS, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as {
    entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
  };
  const last = journal.entries.at(-1);
  if (last === undefined) throw new Error('empty journal');
  journal.entries.push({
    idx: last.idx + 1,
    version: last.version,
    when: last.when + 1000,
    tag,
    breakpoints: true,
  });
  fs.writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  fs.writeFileSync(path.join(folder, `${tag}.sql`), sqlText);
  return folder;
}

/** What drizzle-kit generates for a column change SQLite cannot ALTER: rebuild the table. */
const REBUILD_PROJECTS = `PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE \`__new_projects\` (
\t\`id\` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
\t\`key\` text NOT NULL,
\t\`name\` text NOT NULL,
\t\`archived\` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
INSERT INTO \`__new_projects\`("id", "key", "name") SELECT "id", "key", "name" FROM \`projects\`;--> statement-breakpoint
DROP TABLE \`projects\`;--> statement-breakpoint
ALTER TABLE \`__new_projects\` RENAME TO \`projects\`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX \`projects_key_unique\` ON \`projects\` (\`key\`);`;

describe('migrate', () => {
  it('applies a drizzle-kit migration folder, then is a no-op', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      expect(migrate(database, MIGRATIONS)).toEqual({ applied: 1 });
      expect(tables(database)).toEqual(['__drizzle_migrations', '__shipyard_changes', 'items', 'projects']);
      expect(applied(database)).toBe(1);

      database.sqlite.prepare("INSERT INTO projects (key, name) VALUES ('SHIP', 'Shipyard')").run();
      expect(migrate(database, MIGRATIONS)).toEqual({ applied: 0 });
      expect(applied(database)).toBe(1);
      expect(database.sqlite.prepare('SELECT count(*) FROM projects').pluck().get()).toBe(1);
    } finally {
      database.close();
    }
  });

  it('keeps the same bookkeeping as drizzle-orm/better-sqlite3/migrator (interchangeable)', () => {
    const first = openDatabase({ server: 'tickets', memory: true });
    const second = openDatabase({ server: 'tickets', memory: true });
    try {
      migrate(first, MIGRATIONS);
      expect(() => drizzleMigrate(first.db, { migrationsFolder: MIGRATIONS })).not.toThrow();
      expect(applied(first)).toBe(1);

      drizzleMigrate(second.db, { migrationsFolder: MIGRATIONS });
      expect(migrate(second, MIGRATIONS)).toEqual({ applied: 0 });

      const row = (db: ShipyardDatabase) =>
        db.sqlite.prepare('SELECT hash, created_at FROM __drizzle_migrations').get();
      expect(row(first)).toEqual(row(second));
    } finally {
      first.close();
      second.close();
    }
  });

  it('applies only the new migrations of a later release', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      migrate(database, MIGRATIONS);
      const folder = withExtraMigration('0001_labels', 'ALTER TABLE `items` ADD `label` text;');
      expect(migrate(database, folder)).toEqual({ applied: 1 });
      expect(applied(database)).toBe(2);
      expect(migrate(database, folder)).toEqual({ applied: 0 });
    } finally {
      database.close();
    }
  });

  it('refuses a file a newer release has migrated, changing nothing', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      const newer = withExtraMigration('0001_labels', 'ALTER TABLE `items` ADD `label` text;');
      migrate(database, newer);
      const before = database.sqlite.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get();
      expect(() => migrate(database, MIGRATIONS)).toThrow(
        new RegExp(
          `^${database.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was migrated by a newer release`,
        ),
      );
      expect(database.sqlite.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get()).toBe(before);
      expect(migrate(database, newer)).toEqual({ applied: 0 });
    } finally {
      database.close();
    }
  });

  it('needs no write lock when the file is up to date', () => {
    const dir = tempDir();
    const first = openDatabase({ server: 'tickets', dataDir: dir });
    const second = openDatabase({ server: 'tickets', dataDir: dir, busyTimeoutMs: 50 });
    try {
      migrate(first, MIGRATIONS);
      first.sqlite.exec('BEGIN IMMEDIATE');
      expect(migrate(second, MIGRATIONS)).toEqual({ applied: 0 });
      // A migration still to apply waits for the lock, and here gives up after busyTimeoutMs.
      const folder = withExtraMigration('0001_labels', 'ALTER TABLE `items` ADD `label` text;');
      expect(() => migrate(second, folder)).toThrow(`${second.path}: database is locked`);
      first.sqlite.exec('ROLLBACK');
      expect(migrate(second, folder)).toEqual({ applied: 1 });
    } finally {
      second.close();
      first.close();
    }
  });

  it('rebuilds a parent table without cascading deletes into its children', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      migrate(database, MIGRATIONS);
      database.sqlite.prepare("INSERT INTO projects (key, name) VALUES ('SHIP', 'Shipyard')").run();
      database.sqlite.prepare("INSERT INTO items (project_id, counter, writer) VALUES (1, 1, 'a')").run();

      migrate(database, withExtraMigration('0001_archived', REBUILD_PROJECTS));

      expect(database.sqlite.prepare('SELECT count(*) FROM items').pluck().get()).toBe(1);
      expect(database.sqlite.prepare('SELECT archived FROM projects').pluck().get()).toBe(0);
      expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
      // The children still reference the rebuilt table, and the constraint is enforced.
      expect(() =>
        database.sqlite.prepare("INSERT INTO items (project_id, counter, writer) VALUES (999, 2, 'a')").run(),
      ).toThrow(expect.objectContaining({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' }));
      database.sqlite.prepare('DELETE FROM projects').run();
      expect(database.sqlite.prepare('SELECT count(*) FROM items').pluck().get()).toBe(0);
    } finally {
      database.close();
    }
  });

  it('rolls back every migration of the run when one fails', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      const folder = withExtraMigration(
        '0001_broken',
        'CREATE TABLE `labels` (`id` integer);--> statement-breakpoint\nNOT SQL;',
      );
      expect(() => migrate(database, folder)).toThrow(/syntax error/);
      // Nothing is left behind, not even the bookkeeping table (created in the same transaction).
      expect(tables(database)).toEqual([]);
      expect(database.sqlite.inTransaction).toBe(false);
      expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      database.close();
    }
  });

  it('rolls back when the migrations leave a foreign key violation', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      migrate(database, MIGRATIONS);
      const folder = withExtraMigration(
        '0001_orphan',
        "INSERT INTO `items` (`project_id`, `counter`, `writer`) VALUES (42, 1, 'orphan');",
      );
      expect(() => migrate(database, folder)).toThrow(/foreign key violation/);
      expect(database.sqlite.prepare('SELECT count(*) FROM items').pluck().get()).toBe(0);
      expect(applied(database)).toBe(1);
      expect(database.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      database.close();
    }
  });

  it('does nothing with a folder of no migrations, whatever the file has', () => {
    const database = openDatabase({ server: 'tickets', dataDir: tempDir() });
    try {
      migrate(database, MIGRATIONS);
      const empty = path.join(tempDir(), 'migrations');
      fs.mkdirSync(path.join(empty, 'meta'), { recursive: true });
      fs.writeFileSync(
        path.join(empty, 'meta', '_journal.json'),
        JSON.stringify({ version: '7', dialect: 'sqlite', entries: [] }),
      );
      expect(migrate(database, empty)).toEqual({ applied: 0 });
    } finally {
      database.close();
    }
  });

  it('reports a missing journal and refuses to run inside a transaction', () => {
    const database = openDatabase({ server: 'tickets', memory: true });
    try {
      expect(() => migrate(database, tempDir())).toThrow(/_journal\.json/);
      expect(() => transaction(database, () => migrate(database, MIGRATIONS))).toThrow(
        /inside a transaction/,
      );
    } finally {
      database.close();
    }
  });
});
