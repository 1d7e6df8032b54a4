/** Which engine a server stores in: SQLite in the data dir, or the PostgreSQL a database URL names. */
export type Engine = { kind: 'sqlite' } | { kind: 'postgres'; url: string };

const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'];

/**
 * The engine for `--database-url` / `SHIPYARD_DATABASE_URL`: none gives SQLite; `postgres://` or
 * `postgresql://` gives PostgreSQL; anything else is refused (with the scheme only: a URL may hold a password).
 */
export function chooseEngine(databaseUrl: string | undefined): Engine {
  const url = databaseUrl?.trim();
  if (!url) return { kind: 'sqlite' };
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
  if (scheme && POSTGRES_SCHEMES.includes(scheme)) return { kind: 'postgres', url };
  throw new Error(
    `The database URL must start with postgres:// or postgresql://, got ${scheme ? `"${scheme}//…"` : 'no scheme'}: ` +
      'give a PostgreSQL URL, or leave it unset to store in SQLite in the data directory',
  );
}

/** The URL without its password, to name the database in messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database URL';
  }
}

/** A server's schema: its name with `-` as `_`, so that it needs no quoting in hand-written SQL. */
export function schemaName(server: string): string {
  return server.replace(/-/g, '_');
}
