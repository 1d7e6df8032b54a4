import { describe, expect, it } from 'vitest';
import { bundlerBumps, releasedBy } from '../version-packages.mjs';

describe('version-packages', () => {
  it('reads the packages a changeset releases', () => {
    const md = '---\n\'@shipyard/core\': minor\n"@shipyard/tickets": patch\n---\n\nText: major\n';
    expect(releasedBy(md)).toEqual(['@shipyard/core', '@shipyard/tickets']);
    expect(releasedBy('no front matter')).toEqual([]);
  });

  it('releases the published servers that bundle a released library, once', () => {
    const servers = [
      { name: '@shipyard/tickets', private: false, bundles: ['@shipyard/core', '@shipyard/db'] },
      { name: '@shipyard/sprint', private: false, bundles: ['@shipyard/core'] },
      { name: '@shipyard/example', private: true, bundles: ['@shipyard/core'] },
    ];
    expect(bundlerBumps(['@shipyard/db'], servers)).toEqual(['@shipyard/tickets']);
    expect(bundlerBumps(['@shipyard/core', '@shipyard/sprint'], servers)).toEqual(['@shipyard/tickets']);
    expect(bundlerBumps(['@shipyard/testing'], servers)).toEqual([]);
  });
});
