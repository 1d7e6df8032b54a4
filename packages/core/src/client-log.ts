import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Logger, LogLevel, Redactor } from './logger.js';
import type { Extra } from './tools.js';

/** MCP's levels (syslog's), least severe first. */
const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Shipyard's log levels as MCP names them. */
const AS_MCP = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' } as const;

/** A session's least severity sent to its client; past every level for `silent`. */
export function severity(level: LoggingLevel | LogLevel): number {
  if (level === 'silent') return SEVERITY.length;
  return SEVERITY.indexOf(level in AS_MCP ? AS_MCP[level as keyof typeof AS_MCP] : (level as LoggingLevel));
}

/**
 * A tool call's `ctx.log`: every event goes to `log` (stderr) as before, and those at or above the session's
 * level also to the calling client as `notifications/message`, redacted as the stderr line is.
 */
export function clientLog(
  log: Logger,
  extra: Extra,
  options: { logger: string; minimum: () => number; hide: Redactor; failed: (error: unknown) => void },
): Logger {
  const emit =
    (level: keyof typeof AS_MCP) =>
    (message: string, fields?: Record<string, unknown>): void => {
      log[level](message, fields);
      const mcpLevel = AS_MCP[level];
      if (SEVERITY.indexOf(mcpLevel) < options.minimum()) return;
      const text = options.hide.text(message);
      const data =
        fields && Object.keys(fields).length > 0
          ? { ...(JSON.parse(options.hide.json(fields)) as object), message: text }
          : text;
      extra
        .sendNotification({
          method: 'notifications/message',
          params: { level: mcpLevel, logger: options.logger, data },
        })
        .catch(options.failed);
    };
  return {
    ...(log.level ? { level: log.level } : {}),
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
  };
}
