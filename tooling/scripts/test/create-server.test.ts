import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP, namesFor, parseCommandLine, validateName } from '../../create-server/index.js';

describe('create-server names', () => {
  const servers = mkdtempSync(join(tmpdir(), 'servers-'));
  mkdirSync(join(servers, 'tickets'));

  it('accepts lower-case names with single dashes', () => {
    expect(validateName('release-notes', servers)).toBeUndefined();
    expect(validateName('ab', servers)).toBeUndefined();
  });

  it('refuses names outside ^[a-z][a-z0-9-]{1,30}$, trailing or double dashes, and existing servers', () => {
    for (const bad of [
      '',
      'a',
      'Tickets',
      '1abc',
      'has_underscore',
      'has space',
      'x'.repeat(32),
      'ends-',
      'a--b',
    ]) {
      expect(validateName(bad, servers), bad).toMatch(/server name|Give the server a name/);
    }
    expect(validateName('tickets', servers)).toMatch(/already exists/);
  });

  it('reads its command line: help, one name, --no-install, and refuses anything else', () => {
    expect(parseCommandLine(['--help'], servers)).toEqual({ help: true });
    expect(parseCommandLine(['notes', '-h'], servers)).toEqual({ help: true });
    expect(HELP).toContain('--no-install');
    expect(parseCommandLine(['notes'], servers)).toEqual({ name: 'notes', skipInstall: false });
    expect(parseCommandLine(['--no-install', 'notes'], servers)).toEqual({
      name: 'notes',
      skipInstall: true,
    });
    expect(parseCommandLine(['notes', '--force'], servers)).toEqual({
      error: 'Unknown option --force; see --help',
    });
    expect(parseCommandLine(['notes', 'more'], servers).error).toContain('one server name, not 2');
    expect(parseCommandLine([], servers).error).toContain('Give the server a name');
    expect(parseCommandLine(['tickets'], servers).error).toContain('already exists');
  });

  it('spells the name the ways the template needs', () => {
    expect(namesFor('release-notes')).toEqual({
      __name__: 'release-notes',
      __snake__: 'release_notes',
      __Pascal__: 'ReleaseNotes',
      __title__: 'Release Notes',
    });
  });
});
