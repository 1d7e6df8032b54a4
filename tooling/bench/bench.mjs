#!/usr/bin/env node
// The entry of `pnpm bench`: loads tsx from this package, then the TypeScript harness.
import { register } from 'tsx/esm/api';

register();
await import('./src/run.ts');
