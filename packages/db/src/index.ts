export { MEMORY, resolveDataDir } from './data-dir.js';
export { type MigrateResult, migrate } from './migrate.js';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  type OpenDatabaseOptions,
  openDatabase,
  SERVER_NAME_PATTERN,
  type ShipyardDatabase,
} from './open.js';
export {
  type ShipyardTransaction,
  type TransactionBehavior,
  type TransactionOptions,
  transaction,
} from './transaction.js';
