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
      write(`${new Date().toISOString()} ${level} [${name}] ${oneEvent(message)}${extra}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/**
 * A message as one event: every line after the first is indented (a stack, or a line break in user text,
 * can then never pass for a log line of its own), and other control characters are shown as escapes.
 */
function oneEvent(message: string): string {
  return message
    .replace(/\p{Cc}/gu, (c) =>
      c === '\t' || c === '\n' || c === '\r' || c === '\u0085'
        ? c
        : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/\r\n|[\r\n\u2028\u2029\u0085]/g, '\n    ');
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
