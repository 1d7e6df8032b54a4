#!/usr/bin/env node
// The prepack of each published package. Its package.json names versions with pnpm's `catalog:` and
// `workspace:`, which pnpm pack and pnpm publish (and so `pnpm release`) replace with the versions they
// stand for; npm pack or npm publish would ship them as they are, in a package that does not install.
const agent = process.env.npm_config_user_agent ?? '';
if (!agent.startsWith('pnpm/')) {
  const name = process.env.npm_package_name ?? 'This package';
  const tool = agent.split('/')[0] || 'another tool';
  console.error(
    `${name} is packed with pnpm (pnpm pack here, or pnpm release at the root): its package.json names ` +
      `versions as catalog: and workspace:, which only pnpm replaces, so ${tool} would pack a package that ` +
      'does not install.',
  );
  process.exit(1);
}
