import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const loader = fileURLToPath(new URL('../loader.cjs', import.meta.url));

/**
 * A bundle that reports how it was run; `word` lets two bundles of the same length differ. Like a server
 * that answered `initialize`, it marks the process as one that served, unless `served` is false.
 */
const bundle = (word = 'alpha', served = true) =>
  [
    '"use strict";',
    "const path = require('node:path');",
    'exports.loaded = true;',
    served ? "globalThis[Symbol.for('shipyard.served')] = true;" : '',
    `process.stdout.write(JSON.stringify({ word: '${word}', file: __filename, dir: __dirname, ` +
      'exports: module.exports === exports && exports.loaded, base: path.basename(__filename), ' +
      'strict: (function () { return this === undefined; })() }));',
  ].join('\n');

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A dist folder with the loader as index.cjs next to `code` as bundle.cjs. */
function dist(code = bundle()) {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-loader-'));
  dirs.push(dir);
  copyFileSync(loader, join(dir, 'index.cjs'));
  writeFileSync(join(dir, 'bundle.cjs'), code);
  return {
    dir,
    cache: join(dir, 'bundle.cjs.cache'),
    run: (nodeArgs: string[] = []) =>
      spawnSync(process.execPath, [...nodeArgs, join(dir, 'index.cjs')], { encoding: 'utf8' }),
  };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest();

describe('the bin loader', () => {
  it('runs the bundle as a CommonJS module and saves a code cache tagged with its hash on exit', () => {
    const { dir, cache, run } = dist();
    const result = run();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      word: 'alpha',
      file: join(dir, 'bundle.cjs'),
      dir,
      exports: true,
      base: 'bundle.cjs',
      strict: true,
    });
    const saved = readFileSync(cache);
    expect(saved.subarray(0, 32)).toEqual(sha256(join(dir, 'bundle.cjs')));
    expect(saved.length).toBeGreaterThan(32);
  });

  it('saves the cache readable by all but writable only by its owner, whatever the umask', () => {
    const { cache, run } = dist(`${bundle()}\nprocess.umask(0);`);
    run();
    expect(statSync(cache).mode & 0o777).toBe(0o644);
  });

  it('saves no cache from a run that served no client', () => {
    const { cache, run } = dist(bundle('alpha', false));
    expect(JSON.parse(run().stdout).word).toBe('alpha');
    expect(existsSync(cache)).toBe(false);
  });

  it('uses the cache on the next start and leaves it as it is', () => {
    const { cache, run } = dist();
    run();
    const before = statSync(cache);
    const saved = readFileSync(cache);
    const again = run();
    expect(JSON.parse(again.stdout).word).toBe('alpha');
    // A refused or mismatched cache would have been written anew (a new file renamed over it).
    const after = statSync(cache);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(readFileSync(cache)).toEqual(saved);
  });

  it('runs a changed bundle of the same length as written, not as cached, and replaces the cache', () => {
    const { dir, cache, run } = dist(bundle('alpha'));
    run();
    writeFileSync(join(dir, 'bundle.cjs'), bundle('gamma'));
    expect(JSON.parse(run().stdout).word).toBe('gamma');
    expect(readFileSync(cache).subarray(0, 32)).toEqual(sha256(join(dir, 'bundle.cjs')));
    expect(JSON.parse(run().stdout).word).toBe('gamma');
  });

  it('replaces a cache that V8 refuses, and the bundle still runs', () => {
    const { dir, cache, run } = dist();
    const garbage = Buffer.concat([sha256(join(dir, 'bundle.cjs')), Buffer.alloc(4096, 7)]);
    writeFileSync(cache, garbage);
    const result = run();
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).word).toBe('alpha');
    expect(readFileSync(cache)).not.toEqual(garbage);
  });

  it('runs without a cache where it cannot save one, quietly and leaving nothing behind', () => {
    const { dir, cache, run } = dist();
    // A folder where the cache file should be: the rename fails whatever the user's rights.
    mkdirSync(cache);
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).word).toBe('alpha');
    expect(readdirSync(dir).sort()).toEqual(['bundle.cjs', 'bundle.cjs.cache', 'index.cjs']);
  });

  it("keeps the bundle's exit code, and its errors point at the bundle's own lines", () => {
    const failing = dist(
      ['// line 1', "globalThis[Symbol.for('shipyard.served')] = true;", "throw new Error('boom');"].join(
        '\n',
      ),
    );
    const result = failing.run();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Error: boom');
    expect(result.stderr).toContain(`${join(failing.dir, 'bundle.cjs')}:3:7`);
    expect(dist('process.exit(3);').run().status).toBe(3);
  });

  it('loads the bundle through require, without a cache, when source maps are on', () => {
    const { cache, run } = dist();
    const result = run(['--enable-source-maps']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).word).toBe('alpha');
    expect(existsSync(cache)).toBe(false);
  });
});
