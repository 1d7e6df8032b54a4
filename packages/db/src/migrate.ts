import { readMigrationFiles } from 'drizzle-orm/migrator';
import { ensureChangeLog, hasChangeLog } from './changes.js';
import { aboutFile, type ShipyardDatabase } from './open.js';

/** The bookkeeping table drizzle's migrator (and drizzle-kit) use. */
const MIGRATIONS_TABLE = '__drizzle_migrations';

export interface MigrateResult {
  /** Number of migrations applied by this call (0 when the database was up to date). */
  applied: number;
}

/** The `created_at` of the last migration recorded in the file, or undefined when there is none. */
function appliedUpTo(sqlite: ShipyardDatabase['sqlite']): number | undefined {
  const table = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .pluck()
    .get(MIGRATIONS_TABLE);
  if (table === undefined) return undefined;
  const last = sqlite
    .prepare(`SELECT created_at FROM "${MIGRATIONS_TABLE}" ORDER BY created_at DESC LIMIT 1`)
    .pluck()
    .get() as number | string | null | undefined;
  return last === undefined || last === null ? undefined : Number(last);
}

/**
 * A database migrated by a newer release: this one would read or write it by an older schema. `what` names
 * it (a file, a schema); `elsewhere` is what to give this release instead.
 */
export function newerRelease(
  what: string,
  last: number,
  newest: number,
  elsewhere = 'another data directory',
): Error {
  const day = (millis: number) =>
    Number.isFinite(millis) ? new Date(millis).toISOString().slice(0, 10) : '?';
  return new Error(
    `${what} was migrated by a newer release of this server (its last migration is of ${day(last)}, the ` +
      `newest this release knows is of ${day(newest)}), so this release does not know its tables. Nothing ` +
      `was changed: run the newer release, or give this one ${elsewhere}.`,
  );
}

/**
 * Applies the drizzle-kit migrations in `migrationsFolder` (`meta/_journal.json` + `NNNN_tag.sql`)
 * that the database does not have yet, recording them in `__drizzle_migrations` exactly as
 * `drizzle-orm/better-sqlite3/migrator` does (same table, hash and `created_at`), so the two are
 * interchangeable.
 *
 * Unlike drizzle's migrator, the check for pending migrations and their application happen in one
 * `BEGIN IMMEDIATE` transaction, so processes that start at once on the same file serialize: the
 * first applies, the others wait (busy_timeout) and find nothing to do. drizzle's migrator reads
 * the last applied migration before its (DEFERRED) transaction, so two racing processes can both
 * apply the same migration: one fails with "table already exists" or SQLITE_BUSY, and a migration
 * without a failing statement (a data backfill) would run twice.
 *
 * A file already up to date is found so with a read, without the write lock: a server starts while another
 * process holds a long write. A file whose last recorded migration is newer than any in the folder was
 * migrated by a newer release; it is refused, and nothing is written.
 *
 * Foreign keys are switched off while migrating (a PRAGMA is a no-op inside a transaction, so the
 * `PRAGMA foreign_keys=OFF` drizzle-kit writes around a table rebuild does nothing) so that
 * `DROP TABLE` of a rebuilt parent cannot cascade-delete its children; `PRAGMA foreign_key_check`
 * must then come back empty before commit, else everything is rolled back.
 */
export function migrate<TSchema extends Record<string, unknown>>(
  database: ShipyardDatabase<TSchema>,
  migrationsFolder: string,
): MigrateResult {
  try {
    return migrateFile(database, migrationsFolder);
  } catch (error) {
    throw aboutFile(database.path, error);
  }
}

function migrateFile<TSchema extends Record<string, unknown>>(
  database: ShipyardDatabase<TSchema>,
  migrationsFolder: string,
): MigrateResult {
  const migrations = readMigrationFiles({ migrationsFolder });
  const { sqlite } = database;
  if (sqlite.inTransaction) {
    throw new Error('migrate() cannot run inside a transaction.');
  }
  if (migrations.length === 0) return { applied: 0 };
  const newest = Math.max(...migrations.map((migration) => migration.folderMillis));
  /** The last applied migration's time; refuses a file that a newer release has migrated further. */
  const lastApplied = (): number | undefined => {
    const last = appliedUpTo(sqlite);
    if (last !== undefined && last > newest) throw newerRelease(database.path, last, newest);
    return last;
  };
  // A read first: a file that is up to date needs no write lock, which another process may hold for a while.
  const seen = lastApplied();
  if (seen !== undefined && seen >= newest) {
    // A file made before the change log existed gets it once.
    if (!hasChangeLog(sqlite)) ensureChangeLog(sqlite);
    return { applied: 0 };
  }

  const foreignKeys = sqlite.pragma('foreign_keys', { simple: true }) === 1;
  if (foreignKeys) sqlite.pragma('foreign_keys = OFF');
  try {
    const run = sqlite.transaction((): number => {
      sqlite.exec(
        `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
      );
      // Again under the lock: another process may have migrated since the read above.
      const lastMillis = lastApplied();
      ensureChangeLog(sqlite);
      const record = sqlite.prepare(`INSERT INTO "${MIGRATIONS_TABLE}" ("hash", "created_at") VALUES (?, ?)`);
      let applied = 0;
      for (const migration of migrations) {
        if (lastMillis !== undefined && lastMillis >= migration.folderMillis) continue;
        for (const statement of migration.sql) {
          if (statement.trim() !== '') sqlite.exec(statement);
        }
        record.run(migration.hash, migration.folderMillis);
        applied += 1;
      }
      if (foreignKeys && applied > 0) {
        const violations = sqlite.pragma('foreign_key_check') as Array<Record<string, unknown>>;
        if (violations.length > 0) {
          const first = violations[0];
          throw new Error(
            `Migrations in ${migrationsFolder} leave ${violations.length} foreign key violation(s) ` +
              `(first: table ${String(first?.table)}, rowid ${String(first?.rowid)}, parent ${String(first?.parent)}); rolled back.`,
          );
        }
      }
      return applied;
    });
    return { applied: run.immediate() };
  } finally {
    if (foreignKeys) sqlite.pragma('foreign_keys = ON');
  }
}
