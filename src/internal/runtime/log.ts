import type { Logger, LogLevel } from '../../types/logger.js';

/** Every level, from the most to the least verbose. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/**
 * The enabled levels only: a disabled level is `undefined`, so `log.debug?.(...)` costs one
 * property read on the request path and builds no fields object at all.
 */
export interface Log {
  readonly debug: Logger['debug'] | undefined;
  readonly info: Logger['info'] | undefined;
  readonly warn: Logger['warn'] | undefined;
  readonly error: Logger['error'] | undefined;
}

export function createLog(logger: Logger, level: LogLevel): Log {
  const rank = LOG_LEVELS.indexOf(level);
  const at = (name: Exclude<LogLevel, 'off'>) =>
    LOG_LEVELS.indexOf(name) >= rank
      ? (message: string, fields?: Record<string, unknown>) => logger[name](`[tenant-messaging] ${message}`, fields)
      : undefined;
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
