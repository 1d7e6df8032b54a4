import { createRequire } from 'node:module';

/**
 * Require a package kept outside the bundle (the server's `dependencies`): called on first use, so what is
 * only needed by some calls is neither read nor compiled at start-up.
 */
export const load = createRequire(import.meta.url);
