/** One line per event on stderr: stdout of a stdio server is the protocol. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** The least level this logger writes, where it says (createLogger's loggers do). */
  readonly level?: LogLevel;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  return value && Object.hasOwn(ORDER, value) ? (value as LogLevel) : fallback;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  /** Values never written (the HTTP token): each is shown as `[redacted]`. */
  secrets?: readonly (string | undefined)[];
}

export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const min = ORDER[level];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const hide = redactor(options.secrets);
  const emit =
    (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: Record<string, unknown>) => {
      if (ORDER[level] < min) return;
      const extra = fields && Object.keys(fields).length > 0 ? ` ${hide.json(fields)}` : '';
      write(`${new Date().toISOString()} ${level} [${name}] ${oneEvent(hide.text(message))}${extra}\n`);
    };
  return { level, debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** Keys whose values are never logged (an `Authorization` header, a token, a password). */
const SECRET_KEY = /authorization|cookie|passw(or)?d|passphrase|secret|token|api[-_]?key|credential/i;
const BEARER = /\b(bearer)\s+[^\s"',;]+/gi;
const REDACTED = '[redacted]';

export interface Redactor {
  /** The text with each secret, and any bearer credential, replaced by `[redacted]`. */
  text(text: string): string;
  /** The value as JSON: strings as `text` has them, values under secret keys redacted, errors as name and message. */
  json(value: unknown): string;
}

/** What keeps secrets out of a log line or a log message sent to a client. */
export function redactor(secrets: readonly (string | undefined)[] = []): Redactor {
  const known = secrets.filter((secret): secret is string => !!secret);
  const text = (value: string) => {
    let out = value.replace(BEARER, `$1 ${REDACTED}`);
    for (const secret of known) out = out.split(secret).join(REDACTED);
    return out;
  };
  return {
    text,
    json(value) {
      try {
        return JSON.stringify(value, (key, v: unknown) => {
          // Counts under such keys (`tokens: 120`) say nothing secret.
          if (key && SECRET_KEY.test(key) && v != null && typeof v !== 'number' && typeof v !== 'boolean')
            return REDACTED;
          if (v instanceof Error) return { name: v.name, message: v.message };
          if (typeof v === 'string') return text(v);
          if (typeof v === 'bigint') return String(v);
          return v;
        });
      } catch {
        return '"[unserialisable]"';
      }
    },
  };
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
