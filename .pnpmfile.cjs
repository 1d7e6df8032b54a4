// better-sqlite3 compiles from source when no prebuilt binary can be fetched.
// pnpm's bundled node-gyp ignores the nodedir in .npmrc, so point it at the
// headers of the Node that runs the install (<prefix>/include/node/node.h).
const fs = require('node:fs');
const path = require('node:path');

function nodePrefix() {
  const prefix = path.dirname(path.dirname(process.execPath));
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

module.exports = {
  hooks: {
    updateConfig(config) {
      const prefix = nodePrefix();
      if (prefix && !process.env.npm_config_nodedir) {
        config.extraEnv = { ...config.extraEnv, npm_config_nodedir: prefix };
      }
      return config;
    },
  },
};
