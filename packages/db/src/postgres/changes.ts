import { createRequire } from 'node:module';
import type * as Pg from 'pg';

/** NOTIFY's payload limit is 8000 bytes; a longer list of URIs is sent as {@link EVERYTHING}. */
export const NOTIFY_MAX_BYTES = 7_900;
/** The payload that says: changes were made that this notice cannot list, take everything as changed. */
export const EVERYTHING = '*';
/** Waits between attempts to reconnect the listening client, growing from the first to the last. */
export const RECONNECT_MS = { first: 100, most: 5_000 };

/** The channel a server's writes are announced on: one per schema. */
export const changeChannel = (schema: string) => `shipyard_changes_${schema}`;

/**
 * Announce the URIs a write changed. Call it inside the write's transaction: PostgreSQL delivers the
 * notice when, and only if, the transaction commits.
 */
export async function notifyChanges(
  client: Pick<Pg.ClientBase, 'query'>,
  schema: string,
  uris: readonly string[],
): Promise<void> {
  if (uris.length === 0) return;
  const list = JSON.stringify([...new Set(uris)]);
  const payload = Buffer.byteLength(list) > NOTIFY_MAX_BYTES ? EVERYTHING : list;
  await client.query('SELECT pg_notify($1, $2)', [changeChannel(schema), payload]);
}

export interface ListenOptions {
  url: string;
  schema: string;
  /** URIs a write (by any process on the database, this one too) changed. */
  changed: (...uris: string[]) => void;
  /** Changes may have been missed (a reconnect, a notice too large): take every URI as changed. */
  changedAll: () => void;
  /** Told of each failure to connect or of a lost connection; it is retried whatever it says. */
  failed?: (error: unknown) => void;
}

/**
 * Listen for the server's change notices on a dedicated connection that reconnects when lost (waiting
 * {@link RECONNECT_MS} between attempts). Once it listens, at the start and after each reconnect, every URI
 * counts as changed, since notices sent before are gone. Returns the function that stops listening.
 */
export function listenChanges(options: ListenOptions): () => void {
  const { url, schema, changed, changedAll, failed = () => {} } = options;
  const pg = createRequire(import.meta.url)('pg') as typeof Pg;
  const channel = changeChannel(schema);
  let stopped = false;
  let client: Pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wait = RECONNECT_MS.first;

  const retry = (error: unknown) => {
    if (stopped || timer) return;
    failed(error);
    const dropped = client;
    client = undefined;
    dropped?.removeAllListeners();
    dropped?.on('error', () => {});
    dropped?.end().catch(() => {});
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, wait);
    timer.unref();
    wait = Math.min(wait * 2, RECONNECT_MS.most);
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: url, application_name: `shipyard-listen-${schema}` });
    client = next;
    next.on('error', retry);
    next.on('end', () => retry(new Error('the listening connection ended')));
    next.on('notification', (message) => {
      if (message.channel !== channel) return;
      if (message.payload === EVERYTHING) return changedAll();
      try {
        const uris = JSON.parse(message.payload ?? '[]') as unknown;
        if (Array.isArray(uris)) changed(...uris.filter((uri): uri is string => typeof uri === 'string'));
        else changedAll();
      } catch {
        changedAll();
      }
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
    } catch (error) {
      if (client === next) retry(error);
      return;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    wait = RECONNECT_MS.first;
    // Notices sent before LISTEN took hold (at the start, or while reconnecting) are gone.
    changedAll();
  };

  void connect();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const last = client;
    client = undefined;
    last?.removeAllListeners();
    last?.on('error', () => {});
    last?.end().catch(() => {});
  };
}

/**
 * A store's `watch` on PostgreSQL: the change notices of every process (this one's too) from the moment
 * the database is open. A database that fails to open is reported by the call that needs it, not here.
 */
export function watchPostgres(
  database: () => Promise<{ url: string; schema: string }>,
): (changed: (...uris: string[]) => void, changedAll?: () => void) => () => void {
  return (changed, changedAll = () => {}) => {
    let stop: (() => void) | undefined;
    let stopped = false;
    database().then(
      ({ url, schema }) => {
        if (!stopped) stop = listenChanges({ url, schema, changed, changedAll });
      },
      () => {},
    );
    return () => {
      stopped = true;
      stop?.();
    };
  };
}
