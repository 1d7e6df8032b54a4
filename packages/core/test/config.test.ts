import { describe, expect, it } from 'vitest';
import { helpText } from '../src/config-help.js';
import { DEFAULT_HOST, DEFAULT_PORT, parseConfig, personName, SETTINGS, UsageError } from '../src/index.js';

function usageError(argv: string[], env: NodeJS.ProcessEnv = {}): UsageError {
  let caught: unknown;
  try {
    parseConfig(argv, env);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(UsageError);
  return caught as UsageError;
}

describe('parseConfig', () => {
  it('defaults to stdio on 127.0.0.1:3333, info logs, everything exposed', () => {
    expect(DEFAULT_HOST).toBe('127.0.0.1');
    expect(DEFAULT_PORT).toBe(3333);
    expect(parseConfig([], {})).toEqual({
      transport: 'stdio',
      host: '127.0.0.1',
      port: 3333,
      dataDir: undefined,
      readOnly: false,
      tools: undefined,
      user: undefined,
      logLevel: 'info',
      httpToken: undefined,
      allowedHosts: [],
      httpSettings: {},
      help: false,
      version: false,
      check: false,
      backup: undefined,
      overwrite: false,
      settings: {},
    });
  });

  it('reads --check, which takes no value', () => {
    expect(parseConfig(['--check', '--data-dir', '/srv/data'], {})).toMatchObject({
      check: true,
      dataDir: '/srv/data',
    });
    expect(() => parseConfig(['--check=yes'], {})).toThrow(/--check/);
  });

  it('reads every flag', () => {
    const config = parseConfig(
      [
        '--transport',
        'http',
        '--host',
        '0.0.0.0',
        '--port',
        '8080',
        '--data-dir',
        '/tmp/data',
        '--read-only',
        '--tools',
        'a,b',
        '--user',
        'ada',
        '--log-level',
        'debug',
        '--allowed-hosts',
        'mcp.example,other.example',
      ],
      {},
    );
    expect(config).toMatchObject({
      transport: 'http',
      host: '0.0.0.0',
      port: 8080,
      dataDir: '/tmp/data',
      readOnly: true,
      tools: ['a', 'b'],
      user: 'ada',
      logLevel: 'debug',
      allowedHosts: ['mcp.example', 'other.example'],
    });
  });

  it('falls back to SHIPYARD_* environment variables', () => {
    const config = parseConfig([], {
      SHIPYARD_TRANSPORT: 'http',
      SHIPYARD_HOST: '::1',
      SHIPYARD_PORT: '0',
      SHIPYARD_DATA_DIR: '/var/lib/shipyard',
      SHIPYARD_READ_ONLY: '1',
      SHIPYARD_TOOLS: 'x, y ,',
      SHIPYARD_USER: 'grace',
      SHIPYARD_LOG_LEVEL: 'warn',
      SHIPYARD_HTTP_TOKEN: 's3cret',
      SHIPYARD_ALLOWED_HOSTS: 'mcp.example',
    });
    expect(config).toMatchObject({
      transport: 'http',
      host: '::1',
      port: 0,
      dataDir: '/var/lib/shipyard',
      readOnly: true,
      tools: ['x', 'y'],
      user: 'grace',
      logLevel: 'warn',
      httpToken: 's3cret',
      allowedHosts: ['mcp.example'],
    });
  });

  it('lets a flag win over the environment', () => {
    const env = {
      SHIPYARD_TRANSPORT: 'http',
      SHIPYARD_HOST: '10.0.0.1',
      SHIPYARD_PORT: '9999',
      SHIPYARD_TOOLS: 'x',
      SHIPYARD_USER: 'grace',
      SHIPYARD_LOG_LEVEL: 'warn',
      SHIPYARD_DATA_DIR: '/env',
    };
    const config = parseConfig(
      [
        '--transport=stdio',
        '--host',
        '127.0.0.2',
        '--port',
        '4000',
        '--tools',
        'a',
        '--user',
        'ada',
        '--log-level',
        'error',
        '--data-dir',
        '/flag',
      ],
      env,
    );
    expect(config).toMatchObject({
      transport: 'stdio',
      host: '127.0.0.2',
      port: 4000,
      tools: ['a'],
      user: 'ada',
      logLevel: 'error',
      dataDir: '/flag',
    });
  });

  it('reads SHIPYARD_READ_ONLY as a boolean', () => {
    for (const value of ['1', 'true', 'TRUE', 'yes', 'on']) {
      expect(parseConfig([], { SHIPYARD_READ_ONLY: value }).readOnly, value).toBe(true);
    }
    for (const value of ['0', 'false', 'no', 'OFF', '']) {
      expect(parseConfig([], { SHIPYARD_READ_ONLY: value }).readOnly, value).toBe(false);
    }
    expect(parseConfig(['--read-only'], {}).readOnly).toBe(true);
    // A typo is not read as "no": the server would be writable by mistake. With the flag, it is still
    // refused: it would be found only once the flag went.
    for (const value of ['y', 'ture', '2'])
      for (const argv of [[], ['--read-only']])
        expect(() => parseConfig(argv, { SHIPYARD_READ_ONLY: value }), value).toThrow(
          /SHIPYARD_READ_ONLY must be 1, true, yes or on/,
        );
  });

  it('parses --tools as a trimmed comma list; an empty list given is refused, not read as every tool', () => {
    expect(parseConfig(['--tools', 'search_tickets, get_ticket,,create_ticket '], {}).tools).toEqual([
      'search_tickets',
      'get_ticket',
      'create_ticket',
    ]);
    expect(parseConfig(['--tools', 'one'], {}).tools).toEqual(['one']);
    expect(parseConfig([], { SHIPYARD_TOOLS: '' }).tools).toBeUndefined();
    expect(() => parseConfig(['--tools', ' , '], {})).toThrow(/--tools must name at least one tool/);
    expect(() => parseConfig(['--tools='], { SHIPYARD_TOOLS: 'get_note' })).toThrow(/--tools must name/);
    expect(() => parseConfig([], { SHIPYARD_TOOLS: ' , ' })).toThrow(/SHIPYARD_TOOLS must name/);
  });

  it('reads an empty or blank SHIPYARD_HOST as unset and refuses an empty --host', () => {
    expect(parseConfig([], { SHIPYARD_HOST: '' }).host).toBe('127.0.0.1');
    expect(parseConfig([], { SHIPYARD_HOST: ' ' }).host).toBe('127.0.0.1');
    // An IPv6 address written as in a URL binds as the address.
    expect(parseConfig(['--host', '[::1]'], {}).host).toBe('::1');
    expect(() => parseConfig(['--host', '[]'], {})).toThrow(/--host must name an address/);
    expect(() => parseConfig(['--host', ' '], {})).toThrow(/--host must name an address/);
    expect(() => parseConfig([], { SHIPYARD_HOST: '[]' })).toThrow(/^SHIPYARD_HOST must name an address/);
  });

  it('reads every empty or blank SHIPYARD_* variable as unset, as the README says', () => {
    for (const blank of ['', ' ', '\t \n']) {
      const unset = Object.fromEntries(
        SETTINGS.flatMap((setting) =>
          setting.env && setting.env !== 'SHIPYARD_HTTP_TOKEN' ? [[setting.env, blank]] : [],
        ),
      ) as Record<string, string>;
      expect(Object.keys(unset)).toEqual(expect.arrayContaining(['SHIPYARD_TRANSPORT', 'SHIPYARD_DATA_DIR']));
      expect(parseConfig([], unset), JSON.stringify(blank)).toEqual(parseConfig([], {}));
    }
    // The token is taken as set: blanks around it are refused when HTTP starts, not trimmed away.
    expect(parseConfig([], { SHIPYARD_HTTP_TOKEN: '' }).httpToken).toBeUndefined();
    expect(parseConfig([], { SHIPYARD_HTTP_TOKEN: ' t ' }).httpToken).toBe(' t ');
  });

  it('answers --help and --version whatever the environment holds', () => {
    const bad = { SHIPYARD_READ_ONLY: 'maybe', SHIPYARD_PORT: 'x', SHIPYARD_TRANSPORT: 'carrier-pigeon' };
    expect(() => parseConfig([], bad)).toThrow(UsageError);
    expect(parseConfig(['--help'], bad)).toMatchObject({ help: true, version: false });
    expect(parseConfig(['-v'], bad)).toMatchObject({ help: false, version: true });
  });

  it('refuses an allowed-hosts list that names no host, as --tools does', () => {
    expect(() => parseConfig(['--allowed-hosts', ' , '], {})).toThrow(
      /^--allowed-hosts must name at least one host/,
    );
    expect(() => parseConfig([], { SHIPYARD_ALLOWED_HOSTS: ',' })).toThrow(
      /^SHIPYARD_ALLOWED_HOSTS must name at least one host/,
    );
    expect(parseConfig([], { SHIPYARD_ALLOWED_HOSTS: ' ' }).allowedHosts).toEqual([]);
  });

  it('reads names of a fixed set in any case, without the blanks around them', () => {
    expect(parseConfig([], { SHIPYARD_TRANSPORT: ' HTTP ', SHIPYARD_LOG_LEVEL: 'Debug ' })).toMatchObject({
      transport: 'http',
      logLevel: 'debug',
    });
    expect(parseConfig(['--transport', 'Stdio', '--log-level', 'WARN'], {})).toMatchObject({
      transport: 'stdio',
      logLevel: 'warn',
    });
    expect(parseConfig([], { SHIPYARD_DATA_DIR: ' /tmp/x ' }).dataDir).toBe('/tmp/x');
    // A host and a port too, from a flag as from the environment.
    expect(parseConfig(['--host', ' 127.0.0.2 ', '--port', ' 3000 '], {})).toMatchObject({
      host: '127.0.0.2',
      port: 3000,
    });
  });

  it('takes allowed hosts as names without a port', () => {
    expect(parseConfig(['--allowed-hosts', 'mcp.example, [::1]'], {}).allowedHosts).toEqual([
      'mcp.example',
      '[::1]',
    ]);
    for (const bad of ['mcp.example:8443', 'user@mcp.example', 'a b'])
      expect(() => parseConfig(['--allowed-hosts', bad], {}), bad).toThrow(/without a port/);
  });

  it('takes the HTTP token from the environment only', () => {
    expect(parseConfig([], { SHIPYARD_HTTP_TOKEN: 'abc' }).httpToken).toBe('abc');
    expect(parseConfig([], { SHIPYARD_HTTP_TOKEN: '' }).httpToken).toBeUndefined();
    expect(usageError(['--token', 'abc']).message).toMatch(/token/);
  });

  it('reads --help/-h and --version/-v', () => {
    expect(parseConfig(['--help'], {}).help).toBe(true);
    expect(parseConfig(['-h'], {}).help).toBe(true);
    expect(parseConfig(['--version'], {}).version).toBe(true);
    expect(parseConfig(['-v'], {}).version).toBe(true);
  });

  it('refuses a flag given twice with two values, and takes one given twice alike', () => {
    expect(usageError(['--user', 'ana', '--user', 'bob']).message).toBe(
      '--user is given twice, as "ana" and "bob": give it once',
    );
    expect(usageError(['--data-dir=/a', '--read-only', '--data-dir', '/b']).message).toContain(
      '--data-dir is given twice, as "/a" and "/b"',
    );
    // Exactly as given: a data dir keeps the blanks around it, so `/a` and `/a ` are two.
    expect(usageError(['--data-dir', '/a', '--data-dir', '/a ']).message).toContain(
      '--data-dir is given twice',
    );
    expect(parseConfig(['--user', 'ana', '--user', 'ana', '--read-only', '--read-only'], {})).toMatchObject({
      user: 'ana',
      readOnly: true,
    });
    // Help still answers.
    expect(parseConfig(['--user', 'ana', '--user', 'bob', '--help'], {}).help).toBe(true);
  });

  it('reads the HTTP limits from flags or SHIPYARD_* variables, timeouts in seconds, and leaves unset ones to the transport', () => {
    expect(
      parseConfig(
        [
          '--max-sessions',
          '40',
          '--max-sessions-per-client',
          ' 4 ',
          '--session-idle-timeout',
          '90',
          '--request-timeout',
          '2.5',
        ],
        {},
      ).httpSettings,
    ).toEqual({ maxSessions: 40, maxSessionsPerClient: 4, idleTimeoutMs: 90_000, requestTimeoutMs: 2_500 });
    const env = {
      SHIPYARD_MAX_SESSIONS: '7',
      SHIPYARD_MAX_SESSIONS_PER_CLIENT: '3',
      SHIPYARD_SESSION_IDLE_TIMEOUT: '0.5',
      SHIPYARD_REQUEST_TIMEOUT: '30',
    };
    expect(parseConfig([], env).httpSettings).toEqual({
      maxSessions: 7,
      maxSessionsPerClient: 3,
      idleTimeoutMs: 500,
      requestTimeoutMs: 30_000,
    });
    expect(parseConfig(['--max-sessions', '9'], env).httpSettings.maxSessions).toBe(9);
    expect(parseConfig(['--max-sessions', '9'], {}).httpSettings).toEqual({ maxSessions: 9 });
  });

  it('reads --replica-id and --stateless, or their variables, and refuses a replica id a session id cannot start with', () => {
    expect(parseConfig(['--replica-id', 'east-1', '--stateless'], {}).httpSettings).toEqual({
      replicaId: 'east-1',
      stateless: true,
    });
    expect(parseConfig([], { SHIPYARD_REPLICA_ID: ' r_2 ', SHIPYARD_STATELESS: 'yes' }).httpSettings).toEqual(
      {
        replicaId: 'r_2',
        stateless: true,
      },
    );
    expect(parseConfig([], { SHIPYARD_STATELESS: '0' }).httpSettings).toEqual({});
    expect(() => parseConfig([], { SHIPYARD_STATELESS: 'maybe' })).toThrow(/^SHIPYARD_STATELESS must be 1/);
    for (const bad of ['a.b', 'x'.repeat(33), 'ü'])
      expect(() => parseConfig(['--replica-id', bad], {}), bad).toThrow(
        /^--replica-id must be 1 to 32 letters/,
      );
  });

  it('refuses an HTTP limit that is not a count or a number of seconds, naming where it came from', () => {
    expect(() => parseConfig(['--max-sessions', '0'], {})).toThrow(
      '--max-sessions must be a whole number from 1 to 100000, got "0"',
    );
    expect(() => parseConfig(['--max-sessions-per-client', '2.5'], {})).toThrow(
      /^--max-sessions-per-client must/,
    );
    expect(() => parseConfig([], { SHIPYARD_MAX_SESSIONS: 'many' })).toThrow(/^SHIPYARD_MAX_SESSIONS must/);
    expect(() => parseConfig(['--session-idle-timeout', '0'], {})).toThrow(
      '--session-idle-timeout must be a number of seconds above 0 and at most 86400, got "0"',
    );
    expect(() => parseConfig(['--request-timeout', '10s'], {})).toThrow(/^--request-timeout must/);
    expect(() => parseConfig([], { SHIPYARD_REQUEST_TIMEOUT: '-1' })).toThrow(
      /^SHIPYARD_REQUEST_TIMEOUT must/,
    );
    expect(() => parseConfig(['--max-sessions', ''], {})).toThrow(/^--max-sessions must/);
  });

  it('lists the HTTP limits in --help, saying clients are told apart by address and not by the shared token', () => {
    const help = helpText('shipyard-x', undefined);
    for (const flag of [
      '--max-sessions N',
      '--max-sessions-per-client N',
      '--session-idle-timeout SECONDS',
      '--request-timeout SECONDS',
    ])
      expect(help).toContain(flag);
    expect(help).toMatch(
      /--max-sessions-per-client N .*remote address.*not by token.*\[SHIPYARD_MAX_SESSIONS_PER_CLIENT\]/,
    );
  });

  it('rejects a bad transport', () => {
    expect(usageError(['--transport', 'sse']).message).toContain(
      '--transport must be stdio or http, got "sse"',
    );
    expect(usageError([], { SHIPYARD_TRANSPORT: 'websocket' }).message).toContain('"websocket"');
  });

  it('rejects a bad port', () => {
    for (const port of ['abc', '-1', '65536', '1.5', '', '80x']) {
      expect(usageError([`--port=${port}`]).message, port).toContain(
        '--port must be a number from 0 to 65535',
      );
    }
    expect(usageError([], { SHIPYARD_PORT: 'http' }).message).toContain('"http"');
    expect(parseConfig(['--port', '65535'], {}).port).toBe(65535);
    expect(parseConfig(['--port', '0'], {}).port).toBe(0);
  });

  it('reads --backup FILE and --overwrite, which goes only with it', () => {
    expect(parseConfig(['--backup', 'copy.db'], {})).toMatchObject({ backup: 'copy.db', overwrite: false });
    expect(parseConfig(['--backup', 'copy.db', '--overwrite'], {})).toMatchObject({
      backup: 'copy.db',
      overwrite: true,
    });
    expect(usageError(['--backup', ' ']).message).toContain('--backup must name the file to write');
    expect(usageError(['--overwrite']).message).toContain('--overwrite only goes with --backup FILE');
    expect(SETTINGS.map((setting) => setting.flag)).toEqual(
      expect.arrayContaining(['--backup FILE', '--overwrite']),
    );
  });

  it('takes a postgres:// or postgresql:// database URL from the flag or SHIPYARD_DATABASE_URL, none by default', () => {
    expect(parseConfig([], {}).databaseUrl).toBeUndefined();
    expect(parseConfig(['--database-url', 'postgres://db/org'], {}).databaseUrl).toBe('postgres://db/org');
    expect(parseConfig([], { SHIPYARD_DATABASE_URL: ' postgresql://u@db:5432/org ' }).databaseUrl).toBe(
      'postgresql://u@db:5432/org',
    );
    expect(parseConfig([], { SHIPYARD_DATABASE_URL: ' ' }).databaseUrl).toBeUndefined();
  });

  it('refuses a database URL of another scheme, showing the scheme and not the rest (it may hold a password)', () => {
    const error = usageError([], { SHIPYARD_DATABASE_URL: 'mysql://root:s3cret@db/org' });
    expect(error.message).toContain('SHIPYARD_DATABASE_URL must start with postgres:// or postgresql://');
    expect(error.message).toContain('"mysql:');
    expect(error.message).not.toContain('s3cret');
    expect(usageError(['--database-url', 'db.example/org']).message).toContain('--database-url');
    expect(usageError(['--database-url', ' ']).message).toContain('empty value');
  });

  it('refuses an empty --data-dir rather than fall back to the default place', () => {
    expect(usageError(['--data-dir', '  ']).message).toContain('--data-dir must name a directory');
    expect(usageError(['--data-dir=']).message).toContain('--data-dir must name a directory');
    // An empty SHIPYARD_DATA_DIR is the same as an unset one.
    expect(parseConfig([], { SHIPYARD_DATA_DIR: '' }).dataDir).toBeUndefined();
  });

  it('trims the user, refuses a blank --user and ignores a blank SHIPYARD_USER', () => {
    expect(parseConfig(['--user', '  ada '], {}).user).toBe('ada');
    // Composed form: an accent typed as a combining mark is the same name.
    expect(parseConfig(['--user', 'Jose\u0301'], {}).user).toBe('Jos\u00e9');
    expect(usageError(['--user', '   ']).message).toContain('--user must name someone');
    expect(parseConfig([], { SHIPYARD_USER: '  ' }).user).toBeUndefined();
    // Every change is signed with the name, so it is one line like any name the tools take.
    expect(usageError(['--user', 'a\nb']).message).toBe(
      '--user must be one line with no control characters, got "a\\nb"',
    );
    expect(() => parseConfig([], { SHIPYARD_USER: 'ada\u0007' })).toThrow('SHIPYARD_USER must be one line');
  });

  it('reads a name as it looks: blanks and unseen characters around and in it, and the @ of a mention go, in composed form', () => {
    expect(personName(' @ Jose\u0301 ')).toBe('Jos\u00e9');
    expect(personName('@@bob')).toBe('@bob');
    expect(personName(' @ ')).toBe('@');
    // The isolates some apps put around a pasted name, and other bidi controls, are no part of it.
    expect(personName('\u2068@ana\u2069')).toBe('ana');
    expect(personName('an\u200Fa\u202E')).toBe('ana');
    // So are the other characters that show nothing, and spaces of any kind are one space.
    expect(personName('\uFEFFana\u200B \u2060lee\u00AD')).toBe('ana lee');
    expect(personName('Ana\u00A0Lee')).toBe('Ana Lee');
    expect(personName('Ana \u2009\u3000 Lee')).toBe('Ana Lee');
    expect(personName('@\u200Bana')).toBe('ana');
    // The joiners that shape a script or an emoji are part of it.
    expect(personName('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645')).toBe(
      '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
    );
    expect(personName('\u{1F469}\u200D\u{1F4BB}')).toBe('\u{1F469}\u200D\u{1F4BB}');
  });

  it('takes the user in the form the tools store a name: no bidi controls, no second @', () => {
    expect(parseConfig(['--user', '\u2068ana\u2069'], {}).user).toBe('ana');
    for (const user of ['@@bob', '@', ' @ ']) {
      expect(usageError(['--user', user]).message).toContain('a name does not start with another');
    }
    // Nothing but bidi controls names nobody, from the flag or the variable.
    expect(usageError(['--user', '\u2068\u2069']).message).toBe(
      '--user must name someone, got a blank value',
    );
    expect(() => parseConfig([], { SHIPYARD_USER: '\u2068 \u200E' })).toThrow(
      'SHIPYARD_USER must name someone, got a blank value',
    );
  });

  it('takes the user as the tools take a name: a mention, length, visible, not "me" or "none"', () => {
    expect(parseConfig(['--user', '@ada'], {}).user).toBe('ada');
    expect(parseConfig([], { SHIPYARD_USER: ' @ ada ' }).user).toBe('ada');
    expect(parseConfig(['--user', '\u{1F600}'.repeat(100)], {}).user).toHaveLength(200);
    expect(usageError(['--user', 'a'.repeat(101)]).message).toBe(
      '--user must have at most 100 characters, got 101',
    );
    expect(usageError(['--user', '\u200d']).message).toBe(
      '--user must name someone, got only blanks or invisible characters',
    );
    expect(usageError(['--user', '\u200b']).message).toBe('--user must name someone, got a blank value');
    for (const word of ['none', 'ME', '@me']) {
      expect(usageError(['--user', word]).message).toMatch(
        /^--user must be a person's name, not "(none|ME|me)"/,
      );
    }
    expect(usageError([], { SHIPYARD_USER: 'None' }).message).toMatch(
      /^SHIPYARD_USER must be a person's name/,
    );
  });

  it('rejects a bad log level', () => {
    expect(usageError(['--log-level', 'verbose']).message).toContain('--log-level must be');
    // Names an object has but no level is: not taken for one.
    for (const name of ['constructor', 'toString', '__proto__'])
      expect(usageError(['--log-level', name]).message).toContain('--log-level must be');
    // A value from the environment is named by its variable, so the user knows where to fix it.
    expect(usageError([], { SHIPYARD_LOG_LEVEL: 'trace' }).message).toBe(
      'SHIPYARD_LOG_LEVEL must be debug, info, warn, error or silent, got "trace"',
    );
    expect(usageError([], { SHIPYARD_PORT: 'x' }).message).toMatch(/^SHIPYARD_PORT must be a number/);
    expect(usageError(['--port', 'x'], { SHIPYARD_PORT: '1' }).message).toMatch(/^--port must be/);
    expect(usageError([], { SHIPYARD_TRANSPORT: 'ws' }).message).toMatch(/^SHIPYARD_TRANSPORT must be/);
    expect(parseConfig(['--log-level', 'silent'], {}).logLevel).toBe('silent');
  });

  it('rejects an unknown flag, a positional argument and a flag without its value', () => {
    expect(usageError(['--verbose']).message).toContain('--verbose');
    usageError(['stdio']);
    usageError(['--port']);
    usageError(['--read-only=yes']);
  });

  it('takes a leading -- as the separator a wrapper passes before the flags, and refuses it elsewhere', () => {
    expect(parseConfig(['--', '--user', 'ana', '--read-only'], {})).toMatchObject({
      user: 'ana',
      readOnly: true,
    });
    expect(parseConfig(['--'], {})).toEqual(parseConfig([], {}));
    expect(parseConfig(['--', '--version'], {}).version).toBe(true);
    expect(usageError(['--read-only', '--', '--user', 'ana']).message).toContain("'--user'");
    expect(usageError(['--', '--', '--user', 'ana']).message).toContain("'--user'");
    usageError(['--', 'stdio']);
  });
});
