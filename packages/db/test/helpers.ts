import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const MIGRATIONS = path.join(FIXTURES, 'migrations');

const created: string[] = [];

/** A fresh temp directory, removed after the current test. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shipyard-db-'));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The mode bits (e.g. 0o700) of a path. */
export function modeOf(p: string): number {
  return fs.statSync(p).mode & 0o777;
}
