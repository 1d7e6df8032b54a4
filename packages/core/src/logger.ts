/** One line per event on stderr: stdout of a stdio server is the protocol. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  return value && Object.hasOwn(ORDER, value) ? (value as LogLevel) : fallback;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
}

export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const emit =
    (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: Record<string, unknown>) => {
      if (ORDER[level] < min) return;
      const extra = fields && Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : '';
      write(`${new Date().toISOString()} ${level} [${name}] ${message}${extra}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** An error's stack (or message) for the log; never for a client. */
export function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v) =>
      v instanceof Error ? { name: v.name, message: v.message } : v,
    );
  } catch {
    return '"[unserialisable]"';
  }
}
