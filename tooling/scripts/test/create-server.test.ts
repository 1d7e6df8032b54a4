import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { namesFor, validateName } from '../../create-server/index.js';

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

  it('spells the name the ways the template needs', () => {
    expect(namesFor('release-notes')).toEqual({
      __name__: 'release-notes',
      __snake__: 'release_notes',
      __Pascal__: 'ReleaseNotes',
      __title__: 'Release Notes',
    });
  });
});
