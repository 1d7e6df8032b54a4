export { backupDatabase } from './backup.js';
export {
  CHANGE_LOG_KEEP,
  CHANGE_LOG_TABLE,
  type Connection,
  recordChanges,
  WATCH_INTERVAL_MS,
  watchChanges,
} from './changes.js';
export {
  type CheckResult,
  checkDatabase,
  checkDataFile,
  checkReport,
  type QuickCheckOutcome,
} from './check.js';
export { MEMORY, resolveDataDir } from './data-dir.js';
export { sqliteErrors } from './errors.js';
export { type FtsWord, ftsAllOf, ftsAnyOf, ftsQuery, ftsString, ftsWords } from './fts.js';
export { type LazyDatabase, lazyDatabase } from './lazy.js';
export { type MigrateResult, migrate } from './migrate.js';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  type OpenDatabaseOptions,
  openDatabase,
  SERVER_NAME_PATTERN,
  type ShipyardDatabase,
} from './open.js';
export {
  changeChannel,
  EVERYTHING,
  type ListenOptions,
  listenChanges,
  NOTIFY_MAX_BYTES,
  notifyChanges,
  RECONNECT_MS,
  watchPostgres,
} from './postgres/changes.js';
export { chooseEngine, type Engine, redactUrl, schemaName } from './postgres/engine.js';
export { postgresErrors } from './postgres/errors.js';
export { migratePostgres } from './postgres/migrate.js';
export {
  type OpenPostgresOptions,
  openPostgres,
  type PostgresDatabase,
  pgTransaction,
} from './postgres/open.js';
export { preparedOnce } from './prepared.js';
export {
  type ShipyardTransaction,
  type TransactionBehavior,
  type TransactionOptions,
  transaction,
} from './transaction.js';
