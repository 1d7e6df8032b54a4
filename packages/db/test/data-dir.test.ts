import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDataDir } from '../src/index.js';

const HOME = '/home/ada';

describe('resolveDataDir', () => {
  const env = {
    HOME,
    SHIPYARD_DATA_DIR: '/srv/shipyard-env',
    XDG_DATA_HOME: '/xdg/data',
  };

  it('uses the explicit value first', () => {
    expect(resolveDataDir('/explicit', env)).toBe('/explicit');
  });

  it('then SHIPYARD_DATA_DIR', () => {
    expect(resolveDataDir(undefined, env)).toBe('/srv/shipyard-env');
  });

  it('then $XDG_DATA_HOME/shipyard', () => {
    expect(resolveDataDir(undefined, { HOME, XDG_DATA_HOME: '/xdg/data' })).toBe('/xdg/data/shipyard');
  });

  it('then ~/.local/share/shipyard', () => {
    expect(resolveDataDir(undefined, { HOME })).toBe('/home/ada/.local/share/shipyard');
  });

  it('falls back to os.homedir() when HOME is unset', () => {
    expect(resolveDataDir(undefined, {})).toBe(path.join(os.homedir(), '.local', 'share', 'shipyard'));
  });

  it('ignores empty values', () => {
    expect(resolveDataDir('', { HOME, SHIPYARD_DATA_DIR: ' ', XDG_DATA_HOME: '' })).toBe(
      '/home/ada/.local/share/shipyard',
    );
  });

  it('ignores a relative XDG_DATA_HOME, as the XDG spec says', () => {
    expect(resolveDataDir(undefined, { HOME, XDG_DATA_HOME: 'relative/data' })).toBe(
      '/home/ada/.local/share/shipyard',
    );
  });

  it('expands a leading ~ (host configs pass env values without a shell)', () => {
    expect(resolveDataDir('~/data', { HOME })).toBe('/home/ada/data');
    expect(resolveDataDir(undefined, { HOME, SHIPYARD_DATA_DIR: '~' })).toBe(HOME);
  });

  it('resolves a relative path against the working directory', () => {
    expect(resolveDataDir('rel/dir', { HOME })).toBe(path.resolve('rel/dir'));
  });

  it('passes :memory: through', () => {
    expect(resolveDataDir(':memory:', { HOME })).toBe(':memory:');
    expect(resolveDataDir(undefined, { HOME, SHIPYARD_DATA_DIR: ':memory:' })).toBe(':memory:');
  });
});
