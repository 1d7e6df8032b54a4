/**
 * vitest globalSetup for a package whose own PostgreSQL tests run on every engine: one throwaway cluster
 * for the whole run (unless SHIPYARD_TEST_DATABASE_URL names a server), its URL in that variable.
 */
import { startPostgres } from './postgres.js';

export default async function setup(): Promise<() => Promise<void>> {
  const cluster = await startPostgres();
  process.env.SHIPYARD_TEST_DATABASE_URL = cluster.url;
  return () => cluster.stop();
}
