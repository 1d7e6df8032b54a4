// Module hooks registered by conformance-node20.mjs: `fs` imported by the conformance package resolves to
// node:fs plus a `globSync` that throws. Every other import resolves as usual.
const fsWithGlobSync = `data:text/javascript,${encodeURIComponent(
  [
    "import fs from 'node:fs';",
    "export * from 'node:fs';",
    'export default fs;',
    "export function globSync() { throw new Error('fs.globSync needs Node 22'); }",
  ].join('\n'),
)}`;

export async function resolve(specifier, context, next) {
  const fromConformance = context.parentURL?.includes('/node_modules/@modelcontextprotocol/conformance/');
  if (fromConformance && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: fsWithGlobSync, shortCircuit: true };
  }
  return next(specifier, context);
}
