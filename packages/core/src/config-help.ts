import { DEFAULT_HOST, DEFAULT_PORT, type ServerSetting } from './config.js';
import { HTTP_SETTINGS } from './config-http.js';

/** Every start-up setting: its flag, its environment variable and what it does (for --help, READMEs, server.json). */
export const SETTINGS: ReadonlyArray<{ flag?: string; env?: string; description: string }> = [
  {
    flag: '--transport stdio|http',
    env: 'SHIPYARD_TRANSPORT',
    description: 'How clients connect (default stdio)',
  },
  {
    flag: '--host HOST',
    env: 'SHIPYARD_HOST',
    description: `HTTP bind address (default ${DEFAULT_HOST}); a non-loopback address requires SHIPYARD_HTTP_TOKEN`,
  },
  {
    flag: '--port PORT',
    env: 'SHIPYARD_PORT',
    description: `HTTP port (default ${DEFAULT_PORT}; 0 picks a free one)`,
  },
  {
    flag: '--allowed-hosts a,b',
    env: 'SHIPYARD_ALLOWED_HOSTS',
    description:
      'Extra Host header names accepted over HTTP, besides loopback names and the bind address (bound to 0.0.0.0, list the names clients use)',
  },
  ...HTTP_SETTINGS,
  {
    flag: '--data-dir DIR',
    env: 'SHIPYARD_DATA_DIR',
    description: 'Where the SQLite file lives (default $XDG_DATA_HOME/shipyard or ~/.local/share/shipyard)',
  },
  {
    flag: '--database-url URL',
    env: 'SHIPYARD_DATABASE_URL',
    description:
      'Store in this PostgreSQL database (postgres://...; one schema per server) instead of SQLite in the data dir; prefer the variable when the URL holds a password',
  },
  {
    flag: '--read-only',
    env: 'SHIPYARD_READ_ONLY',
    description:
      'Expose only read-only tools (env: 1, true, yes or on; 0, false, no, off or empty for no; anything else stops start-up; the flag can only turn it on)',
  },
  {
    flag: '--tools a,b',
    env: 'SHIPYARD_TOOLS',
    description: 'Expose only these tools; an unknown name, or an empty list, stops start-up',
  },
  {
    flag: '--user NAME',
    env: 'SHIPYARD_USER',
    description: 'Who "me" is; recorded as the author of changes',
  },
  {
    flag: '--log-level LEVEL',
    env: 'SHIPYARD_LOG_LEVEL',
    description: 'debug, info, warn, error or silent; logs go to stderr (default info)',
  },
  {
    flag: '--backup FILE',
    description:
      'Copy the data file to FILE while servers keep running (SQLite online backup), then exit; an existing FILE is refused without --overwrite',
  },
  { flag: '--overwrite', description: 'With --backup, replace FILE if it exists' },
  {
    env: 'SHIPYARD_HTTP_TOKEN',
    description: 'Bearer token HTTP clients must send (Authorization: Bearer ...)',
  },
  {
    flag: '--check',
    description:
      "Check the data file with SQLite's integrity_check and exit: prints ok (exit 0) or the problems found (exit 1); nothing is changed",
  },
  { flag: '-h, --help', description: 'Show this help' },
  { flag: '-v, --version', description: 'Print the version' },
];

/** A server's own setting as a row of SETTINGS. */
export function settingRow(setting: ServerSetting): { flag: string; env: string; description: string } {
  return { flag: `--${setting.flag} ${setting.value}`, env: setting.env, description: setting.description };
}

export function helpText(
  bin: string,
  description: string | undefined,
  extra: readonly ServerSetting[] = [],
): string {
  const rows = [...extra.map(settingRow), ...SETTINGS].map((s) => [
    s.flag ?? '(env only)',
    s.description,
    s.env ? `[${s.env}]` : '',
  ]);
  const width = Math.max(...rows.map(([flag]) => (flag ?? '').length));
  const lines = rows.map(
    ([flag, text, env]) => `  ${(flag ?? '').padEnd(width)}  ${text}${env ? ` ${env}` : ''}`,
  );
  return `${bin}${description ? ` - ${description}` : ''}\n\nUsage: ${bin} [options]\n\nOptions (flags win over environment variables; an empty or blank one counts as unset):\n${lines.join('\n')}\n`;
}
