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
export { preparedOnce } from './prepared.js';
export {
  type ShipyardTransaction,
  type TransactionBehavior,
  type TransactionOptions,
  transaction,
} from './transaction.js';
