import { parseArgs } from 'node:util';
import { HTTP_OPTIONS, type HttpSettings, parseHttpSettings } from './config-http.js';
import { type LogLevel, parseLogLevel } from './logger.js';
import { named } from './validation.js';

export type TransportKind = 'stdio' | 'http';

/** Start-up settings from flags, falling back to SHIPYARD_* environment variables. */
export interface ServerConfig {
  transport: TransportKind;
  host: string;
  port: number;
  /** Raw --data-dir / SHIPYARD_DATA_DIR; the db package applies the default location. */
  dataDir: string | undefined;
  /** --database-url / SHIPYARD_DATABASE_URL: a `postgres://` URL stores in PostgreSQL; unset, SQLite. */
  databaseUrl: string | undefined;
  readOnly: boolean;
  tools: string[] | undefined;
  user: string | undefined;
  logLevel: LogLevel;
  /** Bearer token for HTTP (`SHIPYARD_HTTP_TOKEN`); env only so it never shows in `ps`. */
  httpToken: string | undefined;
  /** Extra Host header values accepted over HTTP (`--allowed-hosts`, `SHIPYARD_ALLOWED_HOSTS`). */
  allowedHosts: string[];
  /** Sessions and request timeouts over HTTP (config-http.ts); an unset one keeps the transport's default. */
  httpSettings: HttpSettings;
  help: boolean;
  version: boolean;
  /** `--check`: verify the data file and exit, without serving. */
  check: boolean;
  /** `--backup FILE`: copy the data file to FILE and exit instead of serving. */
  backup: string | undefined;
  /** `--overwrite`: with --backup, replace FILE when it exists. */
  overwrite: boolean;
  /** The values of the server's own settings (ServerSetting), by flag name; unset ones are absent. */
  settings: Record<string, string>;
}

/**
 * A setting of one server, besides core's: a flag taking a value (`--repo OWNER/NAME`), the environment
 * variable it falls back to, and what it does (shown in --help and the generated README).
 */
export interface ServerSetting {
  /** The flag's name without dashes, e.g. `repo`. */
  flag: string;
  /** How the value is written in help, e.g. `OWNER/NAME`. */
  value: string;
  env: string;
  description: string;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 3333;

const OPTIONS = {
  transport: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'read-only': { type: 'boolean' },
  tools: { type: 'string' },
  user: { type: 'string' },
  'log-level': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  ...HTTP_OPTIONS,
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  check: { type: 'boolean' },
  backup: { type: 'string' },
  overwrite: { type: 'boolean' },
} as const;

export class UsageError extends Error {}

function list(value: string | undefined): string[] | undefined {
  const items = value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['', '0', 'false', 'no', 'off'];

/** An environment variable's yes or no; anything else is refused rather than read as no. */
function bool(value: string | undefined, name: string): boolean {
  const text = (value ?? '').trim().toLowerCase();
  if (TRUE.includes(text)) return true;
  if (FALSE.includes(text)) return false;
  throw new UsageError(`${name} must be 1, true, yes or on (or 0, false, no, off), got "${value}"`);
}

/** The most characters of a person's name, as `--user` and the tools take one. */
export const MAX_NAME_CHARS = 100;

/**
 * Characters that reorder the text around them when shown: bidi overrides, embeddings, isolates, marks.
 * Global, for `replace`: `test` on it would go on from where its last match left off.
 */
export const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Characters that show nothing between letters: bidi controls, zero-width space, word joiner, BOM, soft hyphen. */
const UNSEEN = new RegExp(`[\u00AD\u200B\u2060\uFEFF]|${BIDI_CONTROLS.source}`, 'g');

/**
 * A name or label as it looks: without the characters that show nothing (see UNSEEN; the zero-width joiners
 * that shape some scripts and emoji stay), each run of spaces of any kind (no-break, thin, ideographic) one
 * space, and no blanks around it. Two names that look alike are then one.
 */
export function asShown(text: string): string {
  return text
    .replace(UNSEEN, '')
    .replace(/\p{Zs}+/gu, ' ')
    .trim();
}

/**
 * A person's name as written down: as it looks (asShown: no bidi controls, such as the isolates some apps put
 * around a pasted name, no zero-width spaces, one space between words), without the `@` of a mention (`@ ana`
 * is ana; a lone `@` stays, as does a second one, for the caller to refuse), in Unicode's composed form (NFC),
 * so José typed either way is one person.
 */
export function personName(value: string): string {
  const name = asShown(value);
  return (name.length > 1 && name.startsWith('@') ? name.slice(1).trim() : name).normalize('NFC');
}

/**
 * The configured user is written as the author of every change and stands for `me`: a name as the tools
 * take one (one line, something visible, at most 100 characters), and not a word they read as a person.
 */
function checkUser(user: string, source: string): void {
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(user)) {
    throw new UsageError(`${source} must be one line with no control characters, got "${named(user)}"`);
  }
  if (!/[^\s\p{Cf}]/u.test(user)) {
    throw new UsageError(`${source} must name someone, got only blanks or invisible characters`);
  }
  const length = [...user].length;
  if (length > MAX_NAME_CHARS) {
    throw new UsageError(`${source} must have at most ${MAX_NAME_CHARS} characters, got ${length}`);
  }
  if (user.startsWith('@')) {
    throw new UsageError(
      `${source} must be a name: one @ before it is dropped (@ana is ana), and a name does not start with another, got "${named(user)}"`,
    );
  }
  if (/^(me|none)$/i.test(user)) {
    throw new UsageError(
      `${source} must be a person's name, not "${user}": the tools read "me" as the configured user and "none" as nobody`,
    );
  }
}

function parseFlags(argv: readonly string[], extra: readonly ServerSetting[]) {
  // A leading `--` only separates a wrapper's arguments from the server's (`pnpm start tickets -- --user
  // ana` passes it through); anywhere else it still ends the flags, and what follows is refused.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  try {
    const own = Object.fromEntries(extra.map((setting) => [setting.flag, { type: 'string' } as const]));
    return parseArgs({
      args,
      options: { ...own, ...OPTIONS },
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function parseConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  extra: readonly ServerSetting[] = [],
): ServerConfig {
  for (const setting of extra) {
    if (setting.flag in OPTIONS)
      throw new Error(`--${setting.flag} is a core setting: name the server's own otherwise`);
  }
  const { values: parsed, tokens } = parseFlags(argv, extra);
  const values = parsed as typeof parsed & Record<string, string | boolean | undefined>;
  // Help and the version answer whatever else is set: a bad value matters to a start they do not make.
  if (values.help || values.version) {
    // The defaults, as no flag and no variable give them (which cannot fail).
    return { ...parseConfig([], {}), help: values.help ?? false, version: values.version ?? false };
  }
  // A flag given twice with two values (a host's args and a wrapper's, say) would quietly take the last.
  // Values compare exactly as given: flags read their values in different ways (a data dir keeps its blanks).
  const seen = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const before = seen.get(token.name);
    if (before !== undefined && before !== token.value) {
      throw new UsageError(
        `--${token.name} is given twice, as "${named(before)}" and "${named(token.value)}": give it once`,
      );
    }
    seen.set(token.name, token.value);
  }
  /** Where a value came from, for error messages: the flag, or else the environment variable. */
  const from = (flag: string, value: string | undefined, name: string) =>
    value !== undefined ? `--${flag}` : name;
  // Empty or blank environment variables count as unset (a host config's `"SHIPYARD_PORT": ""` leaves the
  // default), and a value is read without the blanks around it.
  const fromEnv = (name: string) => env[name]?.trim() || undefined;
  /** A word of a fixed set (stdio, debug), in any case and without the blanks around it. */
  const word = (value: string | undefined) => value?.trim().toLowerCase();
  const transport = word(values.transport ?? fromEnv('SHIPYARD_TRANSPORT')) ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http') {
    const source = from('transport', values.transport, 'SHIPYARD_TRANSPORT');
    throw new UsageError(`${source} must be stdio or http, got "${transport}"`);
  }
  const portText = (values.port ?? fromEnv('SHIPYARD_PORT') ?? String(DEFAULT_PORT)).trim();
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    const source = from('port', values.port, 'SHIPYARD_PORT');
    throw new UsageError(`${source} must be a number from 0 to 65535, got "${portText}"`);
  }
  const logLevelText = word(values['log-level'] ?? fromEnv('SHIPYARD_LOG_LEVEL'));
  const logLevel = parseLogLevel(logLevelText);
  if (logLevelText !== undefined && logLevel !== logLevelText) {
    const source = from('log-level', values['log-level'], 'SHIPYARD_LOG_LEVEL');
    throw new UsageError(`${source} must be debug, info, warn, error or silent, got "${logLevelText}"`);
  }
  if (values['data-dir'] !== undefined && !values['data-dir'].trim()) {
    throw new UsageError('--data-dir must name a directory, got an empty value');
  }
  const databaseUrl = values['database-url']?.trim() || fromEnv('SHIPYARD_DATABASE_URL');
  if (values['database-url'] !== undefined && !databaseUrl) {
    throw new UsageError('--database-url must be a postgres:// URL, got an empty value');
  }
  // Only the scheme is shown: the rest of a URL may hold a password.
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    const source = from('database-url', values['database-url'], 'SHIPYARD_DATABASE_URL');
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(databaseUrl)?.[0];
    throw new UsageError(
      `${source} must start with postgres:// or postgresql://, got ${scheme ? `"${named(scheme)}…"` : 'no scheme'}; leave it unset to store in SQLite in the data directory`,
    );
  }
  // As the tools read a name: `@ada` is ada, and the same name typed with combining accents is one user.
  const given = values.user ?? fromEnv('SHIPYARD_USER');
  const user = given === undefined ? undefined : personName(given);
  // A blank variable is unset (fromEnv), but one of bidi controls only is a value with no name in it.
  if (given !== undefined && !user) {
    throw new UsageError(
      `${from('user', values.user, 'SHIPYARD_USER')} must name someone, got a blank value`,
    );
  }
  if (user) checkUser(user, from('user', values.user, 'SHIPYARD_USER'));
  // An empty or blank list, or host, given on purpose is refused rather than read as "no restriction"
  // (every tool, every interface).
  // An IPv6 address as a URL writes it ([::1]) is the address (::1): listen() takes no brackets.
  const host = (values.host ?? fromEnv('SHIPYARD_HOST') ?? DEFAULT_HOST).trim().replace(/^\[(.*)\]$/, '$1');
  if (!host.trim()) {
    const source = from('host', values.host, 'SHIPYARD_HOST');
    throw new UsageError(`${source} must name an address, got an empty value`);
  }
  const toolsText = values.tools ?? fromEnv('SHIPYARD_TOOLS');
  const tools = list(toolsText);
  if (toolsText !== undefined && !tools) {
    const source = from('tools', values.tools, 'SHIPYARD_TOOLS');
    throw new UsageError(`${source} must name at least one tool, got "${toolsText}"`);
  }
  const allowedText = values['allowed-hosts'] ?? fromEnv('SHIPYARD_ALLOWED_HOSTS');
  const allowedHosts = list(allowedText) ?? [];
  if (allowedText !== undefined && allowedHosts.length === 0) {
    const source = from('allowed-hosts', values['allowed-hosts'], 'SHIPYARD_ALLOWED_HOSTS');
    throw new UsageError(`${source} must name at least one host, got "${allowedText}"`);
  }
  for (const name of allowedHosts) {
    const url = URL.canParse(`http://${name}`) ? new URL(`http://${name}`) : undefined;
    if (url?.port === '' && url.host === name.toLowerCase()) continue;
    const source = from('allowed-hosts', values['allowed-hosts'], 'SHIPYARD_ALLOWED_HOSTS');
    throw new UsageError(`${source} takes host names without a port (e.g. mcp.example), got "${name}"`);
  }
  if (values.backup !== undefined && !values.backup.trim()) {
    throw new UsageError('--backup must name the file to write, got an empty value');
  }
  if (values.overwrite && values.backup === undefined) {
    throw new UsageError('--overwrite only goes with --backup FILE');
  }
  const httpSettings = parseHttpSettings(
    (flag, name) => {
      const given = values[flag];
      const text = typeof given === 'string' ? given.trim() : fromEnv(name);
      return text === undefined ? undefined : { text, source: from(flag, given as string | undefined, name) };
    },
    (message) => {
      throw new UsageError(message);
    },
  );
  if (values.stateless ?? bool(env.SHIPYARD_STATELESS, 'SHIPYARD_STATELESS')) httpSettings.stateless = true;
  const settings: Record<string, string> = {};
  for (const setting of extra) {
    const given = values[setting.flag];
    const value = typeof given === 'string' ? given.trim() : fromEnv(setting.env);
    if (typeof given === 'string' && !value) throw new UsageError(`--${setting.flag} must not be empty`);
    if (value) settings[setting.flag] = value;
  }
  // Checked also when the flag is given: a value that stops start-up should not wait for the flag to go.
  const readOnlyEnv = bool(env.SHIPYARD_READ_ONLY, 'SHIPYARD_READ_ONLY');
  return {
    transport,
    host,
    port,
    dataDir: values['data-dir'] ?? fromEnv('SHIPYARD_DATA_DIR'),
    databaseUrl,
    readOnly: values['read-only'] ?? readOnlyEnv,
    tools,
    user: user || undefined,
    logLevel,
    // As set: a token with blanks around it is refused when HTTP starts, not trimmed into another token.
    httpToken: env.SHIPYARD_HTTP_TOKEN || undefined,
    allowedHosts,
    httpSettings,
    help: values.help ?? false,
    version: values.version ?? false,
    check: values.check ?? false,
    backup: values.backup,
    overwrite: values.overwrite ?? false,
    settings,
  };
}
