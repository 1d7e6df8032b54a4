import { describe, expect, it } from 'vitest';
import { parseConfig, type ServerSetting, UsageError } from '../src/config.js';
import { helpText } from '../src/config-help.js';
import { defineServer } from '../src/index.js';
import { renderReference } from '../src/lint/docs.js';

const OWN: ServerSetting[] = [
  { flag: 'repo', value: 'OWNER/NAME', env: 'SHIPYARD_DEMO_REPO', description: 'The default repository' },
  {
    flag: 'token-file',
    value: 'FILE',
    env: 'SHIPYARD_DEMO_TOKEN_FILE',
    description: 'Read the token from FILE',
  },
];

describe("a server's own settings", () => {
  it('reads a flag, falling back to its environment variable', () => {
    const config = parseConfig(['--repo', ' acme/rocket '], { SHIPYARD_DEMO_TOKEN_FILE: '/run/token' }, OWN);
    expect(config.settings).toEqual({ repo: 'acme/rocket', 'token-file': '/run/token' });
  });

  it('lets the flag win and leaves unset ones out', () => {
    const config = parseConfig(
      ['--repo', 'a/b'],
      { SHIPYARD_DEMO_REPO: 'c/d', SHIPYARD_DEMO_TOKEN_FILE: ' ' },
      OWN,
    );
    expect(config.settings).toEqual({ repo: 'a/b' });
  });

  it('refuses an empty flag, and the flag on a server that does not declare it', () => {
    expect(() => parseConfig(['--repo', ' '], {}, OWN)).toThrow(new UsageError('--repo must not be empty'));
    expect(() => parseConfig(['--repo', 'a/b'], {})).toThrow(UsageError);
  });

  it('refuses a setting named as a core one', () => {
    const clash = [{ flag: 'port', value: 'N', env: 'X', description: 'x' }];
    expect(() => parseConfig([], {}, clash)).toThrow(/--port is a core setting/);
  });

  it('shows in --help and in the generated reference', () => {
    const help = helpText('shipyard-demo', 'demo', OWN);
    expect(help).toContain('--repo OWNER/NAME');
    expect(help).toContain('The default repository [SHIPYARD_DEMO_REPO]');
    const reference = renderReference(
      defineServer({ name: 'demo', version: '0.0.0', deps: {}, tools: [], settings: OWN }),
    );
    expect(reference).toContain(
      '| `--token-file FILE` | `SHIPYARD_DEMO_TOKEN_FILE` | Read the token from FILE |',
    );
  });
});
