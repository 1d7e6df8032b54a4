import { fileURLToPath } from 'node:url';
import { vitestConfig } from '@shipyard/vitest-config';

// SHIPYARD_TEST_DB=postgres runs the suite on a throwaway PostgreSQL cluster (or SHIPYARD_TEST_DATABASE_URL).
export default vitestConfig({
  globalSetup: [fileURLToPath(import.meta.resolve('@shipyard/testing/postgres-setup'))],
});
