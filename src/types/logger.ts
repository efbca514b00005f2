/** Severity of a log line; `off` silences the SDK. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/**
 * Where the SDK writes its log lines: `console` fits, and so do pino's and winston's loggers.
 *
 * @example
 * ```ts
 * new MessagingClient({ logger: pino(), logLevel: 'info' })
 * ```
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
