/**
 * The server's log: one line per event on stderr (stdout carries MCP messages only), at the level
 * of `TENANT_MESSAGING_LOG`, with the API key and the bearer token never shown, in any encoding. The SDK never puts
 * the key in a message; the redaction here also covers what this server did not write itself (a
 * library's error text quoting a header, say).
 */
import type { Logger, LogLevel } from 'tenant-messaging';
import { redactingLogger } from 'tenant-messaging-bin-kit';

/** Every level, from the most to the least verbose (the client's `logLevel` takes the same). */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/**
 * The server's own lines, enabled levels only: a disabled level is `undefined`, so
 * `log.debug?.(...)` builds no fields when it is off.
 */
export interface Log {
  readonly debug: Logger['debug'] | undefined;
  readonly info: Logger['info'] | undefined;
  readonly warn: Logger['warn'] | undefined;
  readonly error: Logger['error'] | undefined;
}

/**
 * The levels of `logger` at `level` and above, each line tagged as the SDK tags its own.
 *
 * @example
 * ```ts
 * createLog(logger, 'info').debug // undefined
 * ```
 */
export function createLog(logger: Logger, level: LogLevel): Log {
  const rank = LOG_LEVELS.indexOf(level);
  const at = (name: Exclude<LogLevel, 'off'>) =>
    LOG_LEVELS.indexOf(name) >= rank
      ? (message: string, fields?: Record<string, unknown>) => logger[name](`[tenant-messaging] ${message}`, fields)
      : undefined;
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The server's own log and the logger the client is given, at one level. */
export interface ServerLog {
  /** The enabled levels of the server's own lines (`log.info?.(...)`). */
  readonly log: Log;
  /** For the client's `logger` option: the SDK's lines go the same way. */
  readonly logger: Logger;
  readonly level: LogLevel;
}

/**
 * The log of one server process on stderr.
 *
 * @example
 * ```ts
 * const { log, logger } = serverLog('info', [apiKey, token])
 * log.info?.('mcp: serving over stdio')
 * ```
 */
export function serverLog(
  level: LogLevel,
  secrets: readonly string[],
  write: (line: string) => void = (line) => process.stderr.write(line),
): ServerLog {
  const logger = redactingLogger(secrets, write);
  return { log: createLog(logger, level), logger, level };
}
