/**
 * vitest globalSetup: with SHIPYARD_TEST_DB=postgres, starts one throwaway cluster for the whole run (unless
 * SHIPYARD_TEST_DATABASE_URL names a server) and hands its URL to the test workers in that variable.
 */
import { startPostgres, testEngine } from './postgres.js';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (testEngine() !== 'postgres') return undefined;
  const cluster = await startPostgres();
  process.env.SHIPYARD_TEST_DATABASE_URL = cluster.url;
  return () => cluster.stop();
}
