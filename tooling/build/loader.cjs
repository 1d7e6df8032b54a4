#!/usr/bin/env node
// The bin, written by shipyard-build. It runs the bundled server (bundle.cjs, next to this file) through V8's
// code cache: a start that served a client saves, as it exits, what V8 compiled to bundle.cjs.cache, and
// every later start hands that back to V8 and skips most of the parsing and compiling, the largest part of a
// start after Node itself. Core marks a process that has answered `initialize` (Symbol.for('shipyard.served')
// on globalThis); `--help` or a start no client talked to has compiled too little to be worth saving.
//
// The cache sits next to the code it was made from, so whoever could change it could change the code. It
// holds the SHA-256 of the bundle it was made from (V8 itself checks only the length of the source), and is
// written only when missing or refused (another bundle, another Node or V8 flags): to a new file of its own
// (mode 0644 whatever the umask), then renamed over the old one. A folder that cannot be written just means
// no cache. With source maps on (node --enable-source-maps) the bundle is loaded by require instead, which
// maps stack traces. CommonJS, as the bundle is: an ES module entry costs a start more.
const { createHash, randomBytes } = require('node:crypto');
const { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

const file = join(__dirname, 'bundle.cjs');
// process.sourceMapsEnabled is Node 20.7 and later.
const sourceMaps =
  process.sourceMapsEnabled ??
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes('--enable-source-maps');

if (sourceMaps) {
  require(file);
} else {
  const cacheFile = `${file}.cache`;
  const code = readFileSync(file);
  const hash = createHash('sha256').update(code).digest();
  let cached;
  try {
    const saved = readFileSync(cacheFile);
    if (saved.subarray(0, hash.length).equals(hash)) cached = saved.subarray(hash.length);
  } catch {
    // No cache yet.
  }
  // The function a CommonJS module runs in, on a line of its own so that lines and columns stay the bundle's.
  // shipyard-build checks that the bundle is ASCII, so latin1 reads it as written.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {\n${code.toString('latin1')}\n})`,
    { filename: file, lineOffset: -1, cachedData: cached },
  );
  if (cached === undefined || script.cachedDataRejected) {
    process.once('exit', () => {
      if (globalThis[Symbol.for('shipyard.served')] !== true) return;
      const temporary = `${cacheFile}.${randomBytes(6).toString('hex')}`;
      let fd;
      try {
        // Opened first: where it cannot be, the cache data is not even made.
        fd = openSync(temporary, 'wx', 0o644);
        writeFileSync(fd, Buffer.concat([hash, script.createCachedData()]));
        closeSync(fd);
        fd = undefined;
        renameSync(temporary, cacheFile);
      } catch {
        try {
          if (fd !== undefined) closeSync(fd);
          rmSync(temporary, { force: true });
        } catch {
          // Nothing more to undo.
        }
      }
    });
  }
  const bundle = { exports: {} };
  script.runInThisContext().call(bundle.exports, bundle.exports, require, bundle, file, __dirname);
}
