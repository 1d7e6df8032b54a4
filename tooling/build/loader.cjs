#!/usr/bin/env node
// The bin, written by shipyard-build. It runs the bundled server (bundle.cjs, next to this file) through V8's
// code cache: the first start compiles the bundle as usual and, when the process exits, saves what V8
// compiled to bundle.cjs.cache; every later start hands that back to V8 and skips most of the parsing and
// compiling, the largest part of a start after Node itself. The cache sits next to the code it was made
// from, so whoever could change it could change the code; it holds the SHA-256 of the bundle it belongs to
// (V8 itself checks only the length of the source), is replaced whole (write, then rename) and only when
// missing or refused (another bundle, another Node or V8 flags), and a folder that cannot be written just
// means no cache. With source maps on (node --enable-source-maps) the bundle is loaded by require
// instead, which maps stack traces. CommonJS, as the bundle is: an ES module entry costs a start more.
const { createHash } = require('node:crypto');
const { readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');

const file = join(__dirname, 'bundle.cjs');

if (process.sourceMapsEnabled) {
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
      const temporary = `${cacheFile}.${process.pid}`;
      try {
        writeFileSync(temporary, Buffer.concat([hash, script.createCachedData()]));
        renameSync(temporary, cacheFile);
      } catch {
        try {
          rmSync(temporary, { force: true });
        } catch {
          // Nothing was written.
        }
      }
    });
  }
  const bundle = { exports: {} };
  script.runInThisContext().call(bundle.exports, bundle.exports, require, bundle, file, __dirname);
}
