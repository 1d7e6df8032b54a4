// Imported (`node --import`) into the conformance CLI. Its bundle imports `globSync` from `fs`, which
// Node 20 lacks; only its tier-check command calls it, so the scenarios run with a stand-in that throws.
// Node 22 has it, and there this file does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./conformance-node20-hooks.mjs', import.meta.url);
