import { vitestConfig } from '@shipyard/vitest-config';

export default vitestConfig();
