import { parseConfig, type ServerConfig, type ServerSetting, UsageError } from './config.js';
import { helpText } from './config-help.js';
import type { ServerDefinition } from './define.js';
import type { HttpHandle, HttpOptions } from './http.js';
import { createLogger, type Logger, stackOf } from './logger.js';
import { ConfigError, Runtime } from './runtime.js';
import { StdioTransport } from './stdio.js';

/** How long shutdown waits for the calls and requests in flight. */
const DRAIN_MS = 10_000;

/**
 * Resolves once what was written to a stream so far has been handed to the OS, or at the deadline: a reader
 * that stopped reading must not hold the exit for ever.
 */
function flushed(stream: NodeJS.WriteStream, deadline: number): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
    timer.unref();
    // Writes complete in order: this empty one's callback runs once everything before it is written.
    stream.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export type ServerFactory<Deps = any> = (
  config: ServerConfig,
  log: Logger,
) => ServerDefinition<Deps> | Promise<ServerDefinition<Deps>>;

/** Which data file `--check` and `--backup` are about: the server's, in its data dir. */
export interface DataFileRequest {
  /** The server's name, which names its data file. */
  server: string;
  /** Raw --data-dir / SHIPYARD_DATA_DIR, as in ServerConfig. */
  dataDir: string | undefined;
}

/** What `--backup FILE` asks for: a copy of the server's data file at `file`. */
export interface BackupRequest extends DataFileRequest {
  file: string;
  /** Replace `file` when it exists (`--overwrite`). */
  overwrite: boolean;
}

/** Writes the copy `--backup` asks for and returns one line that says what it wrote. */
export type BackupData = (request: BackupRequest) => Promise<string>;

export interface RunOptions {
  /** Arguments after the script (default process.argv.slice(2)). */
  argv?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Needed with a factory, so --help and --version answer without opening anything. */
  name?: string;
  version?: string;
  description?: string;
  /** The server's own flags (a factory's; a definition's `settings` are used without it). */
  settings?: readonly ServerSetting[];
  /**
   * What `--check` runs instead of serving: verifies the server's data file. Its report goes to stdout when
   * `ok`, else to stderr, and the exit code is 0 or 1. Without it, `--check` is refused.
   */
  check?: (request: DataFileRequest) => { ok: boolean; report: string };
  /** Exit the process on shutdown (default true; tests pass false). */
  exit?: boolean;
  /** Serves `--backup FILE`: `backupDatabase` from @shipyard/db. Without it, --backup is refused. */
  backup?: BackupData;
}

export interface RunningServer {
  runtime: Runtime;
  config: ServerConfig;
  /** Set for --transport http. */
  http?: HttpHandle;
  /** Drain in-flight calls, close transports and the definition. */
  stop(): Promise<void>;
}

/** Load the HTTP stack on demand: a stdio server never pays for it. */
export async function startHttp(runtime: Runtime, options: HttpOptions): Promise<HttpHandle> {
  const { serveHttp } = await import('./http.js');
  return serveHttp(runtime, options);
}

/**
 * The bin's whole job: parse flags and SHIPYARD_* env, build the definition, serve it over stdio or HTTP,
 * and shut down cleanly on SIGINT/SIGTERM or when stdin closes. Returns undefined after --help, --version
 * and --check.
 */
export async function runServer(
  server: ServerDefinition | ServerFactory,
  options: RunOptions = {},
): Promise<RunningServer | undefined> {
  const argv = options.argv ?? process.argv.slice(2);
  const env = options.env ?? process.env;
  const exit = options.exit ?? true;
  const name = typeof server === 'function' ? options.name : server.name;
  const version = typeof server === 'function' ? options.version : server.version;
  const bin = `shipyard-${name ?? 'server'}`;
  const fail = (message: string, code = 2): undefined => {
    process.stderr.write(`${bin}: ${message}\n`);
    if (exit) process.exit(code);
    throw new UsageError(message);
  };
  /** The last line of a failed start, written whatever the log level (the log may be silent). */
  const couldNotStart = (error: unknown) =>
    `could not start: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`;

  const settings = options.settings ?? (typeof server === 'function' ? [] : (server.settings ?? []));
  let config: ServerConfig;
  try {
    config = parseConfig(argv, env, settings);
  } catch (error) {
    return fail(`${(error as Error).message}\nRun ${bin} --help for the options.`);
  }
  if (config.help) {
    process.stdout.write(helpText(bin, options.description, settings));
    return undefined;
  }
  if (config.version) {
    process.stdout.write(`${version ?? 'unknown'}\n`);
    return undefined;
  }
  // Both work on the SQLite file; a PostgreSQL database has its own tools.
  if ((config.backup !== undefined || config.check) && config.databaseUrl !== undefined) {
    const flag = config.check ? '--check' : '--backup';
    return fail(
      `${flag} works on the SQLite data file; with a database URL, use pg_dump and PostgreSQL's own checks`,
    );
  }
  if (config.backup !== undefined) {
    if (!options.backup) return fail('--backup: this server keeps no data file to back up');
    try {
      const { dataDir, backup: file, overwrite } = config;
      const summary = await options.backup({ server: name ?? 'server', dataDir, file, overwrite });
      process.stderr.write(`${bin}: ${summary}\n`);
    } catch (error) {
      return fail(
        `backup failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
        1,
      );
    }
    return undefined;
  }

  if (config.check) {
    if (!options.check) return fail('--check: this server keeps no data file to check');
    let result: { ok: boolean; report: string };
    try {
      result = options.check({ server: name ?? 'server', dataDir: config.dataDir });
    } catch (error) {
      return fail(`--check: ${(error as Error).message}`, 1);
    }
    (result.ok ? process.stdout : process.stderr).write(`${result.report}\n`);
    if (exit) process.exitCode = result.ok ? 0 : 1;
    return undefined;
  }

  // The token, and a database URL's password, never show in a log line, nor in a log message sent to a client.
  const secrets = [config.httpToken, passwordOf(config.databaseUrl)];
  const log = createLogger(name ?? 'server', { level: config.logLevel, secrets });
  // Nothing before the transport is up: HTTP warms up before it listens and handles a failure there. Then a
  // graceful stop (below).
  let stopAfterFailedWarmUp = (_error: unknown) => {};
  let runtime: Runtime;
  try {
    const definition = typeof server === 'function' ? await server(config, log) : server;
    if (config.databaseUrl !== undefined && definition.postgres !== true) {
      return fail(
        `${definition.name} stores only in SQLite so far: unset --database-url / SHIPYARD_DATABASE_URL (its data goes in --data-dir)`,
      );
    }
    runtime = new Runtime(definition, {
      readOnly: config.readOnly,
      ...(config.tools ? { tools: config.tools } : {}),
      ...(config.user ? { user: config.user } : {}),
      logger: log,
      secrets,
      onWarmUpError: (error) => stopAfterFailedWarmUp(error),
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) return fail(error.message);
    log.error(`start-up failed\n${stackOf(error)}`);
    return fail(couldNotStart(error), 1);
  }

  let http: HttpHandle | undefined;
  if (config.transport === 'http') {
    // A long-lived HTTP server opens what it needs before it listens: a bad data directory stops it here,
    // not at its first client. (Over stdio the host waits for `initialize`, so that answers first.)
    try {
      await runtime.warmUp();
    } catch (error) {
      await runtime.close();
      return fail(couldNotStart(error), 1);
    }
    try {
      http = await startHttp(runtime, {
        host: config.host,
        port: config.port,
        token: config.httpToken,
        allowedHosts: config.allowedHosts,
        ...config.httpSettings,
      });
    } catch (error) {
      await runtime.close();
      const { code } = error as { code?: unknown };
      const hint =
        code === 'EADDRINUSE'
          ? ': another process listens there; give another --port or SHIPYARD_PORT (0 picks a free one)'
          : code === 'EACCES'
            ? ': this user may not listen there; give a --port or SHIPYARD_PORT from 1024 up (0 picks a free one)'
            : '';
      return fail(`${(error as Error).message}${hint}`);
    }
  } else {
    // The transport checks every request it passes on (readLine).
    await runtime.connect(new StdioTransport(process.stdin, process.stdout, log));
    log.debug('serving on stdio', { readOnly: config.readOnly, tools: runtime.toolNames.length });
    // Started by hand in a terminal, the server would wait silently for a host that never comes.
    if (process.stdin.isTTY && config.logLevel !== 'silent') {
      process.stderr.write(
        `${bin}: serving MCP on stdio, as a host (Claude Desktop, Cursor, VS Code) starts it; stop with Ctrl-C. ` +
          `${bin} --help lists the options.\n`,
      );
    }
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // HTTP first: requests already arriving are answered before the runtime stops taking calls. One
      // deadline for both, so a hung call holds the exit for DRAIN_MS, not twice that.
      const deadline = Date.now() + DRAIN_MS;
      await http?.close({ drainMs: DRAIN_MS });
      await runtime.close({ drainMs: Math.max(0, deadline - Date.now()) });
    })();
    return stopping;
  };
  /** Why warm-up failed, once it has: the exit code is then 1, whichever shutdown comes first. */
  let failure: string | undefined;
  let said = false;
  /** Write why warm-up failed, once. */
  const lastWords = () => {
    if (failure === undefined || said) return;
    said = true;
    process.stderr.write(`${bin}: ${failure}\n`);
  };
  const shutdown = (reason: string) => {
    log.debug(`shutting down (${reason})`);
    const deadline = Date.now() + 2 * DRAIN_MS;
    stop()
      // Over stdio the answers of the last calls may still wait in stdout's buffer (a host reading slowly):
      // process.exit would drop them, and a client would retry writes that were made.
      .then(() => Promise.all([flushed(process.stdout, deadline), flushed(process.stderr, deadline)]))
      .then(
        () => {
          // The last line, after the calls' own log lines.
          lastWords();
          if (exit) process.exit(failure === undefined ? 0 : 1);
        },
        (error: unknown) => {
          log.error('shutdown failed', { error });
          lastWords();
          if (exit) process.exit(1);
        },
      );
  };
  // A client may have sent more than initialize before warm-up failed (tools/list needs no database): the
  // messages already read are answered (setImmediate lets the initialize answer go out first), then it stops.
  stopAfterFailedWarmUp = (error) => {
    failure = couldNotStart(error);
    if (exit) setImmediate(() => shutdown('warm-up failed'));
    // Without exit, no shutdown follows by itself: the caller stops the server.
    else lastWords();
  };
  if (exit) {
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    // After the transport has read a last line that had no newline, and its call has begun.
    if (config.transport === 'stdio')
      process.stdin.once('end', () => setImmediate(() => shutdown('stdin closed')));
  }
  // Said once the signals are handled: a supervisor that stops the server on this line stops it cleanly.
  if (http) {
    log.info(`listening on ${http.url}`, {
      readOnly: config.readOnly,
      tools: runtime.toolNames.length,
      replica: http.replica,
      ...(config.httpSettings.stateless ? { stateless: true } : {}),
    });
  }
  return { runtime, config, ...(http ? { http } : {}), stop };
}

/** The password in a database URL, if it has one. */
function passwordOf(url: string | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  const { password } = new URL(url);
  return password ? decodeURIComponent(password) : undefined;
}
