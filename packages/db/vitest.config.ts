import { fileURLToPath } from 'node:url';
import { vitestConfig } from '@shipyard/vitest-config';

// The PostgreSQL side's tests (test/postgres.test.ts) run on one throwaway cluster per run.
export default vitestConfig({
  globalSetup: [fileURLToPath(import.meta.resolve('@shipyard/testing/postgres-cluster'))],
});
