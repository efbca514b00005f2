/**
 * The defaults, repeated as `@default` on each option.
 *
 * @example
 * ```ts
 * const client = new MessagingClient({ timeout: DEFAULTS.timeout * 2 })
 * ```
 */
export const DEFAULTS = Object.freeze({
  timeout: 30_000,
  maxRetries: 2,
  pollInterval: 2_000,
  pollTimeout: 120_000,
  pollMaxConcurrent: 16,
  pollMaxPerSecond: 100,
});

/** Environment variables the client reads when an option is omitted. */
export const ENV = Object.freeze({
  baseUrl: 'TENANT_MESSAGING_BASE_URL',
  apiKey: 'TENANT_MESSAGING_API_KEY',
  logLevel: 'TENANT_MESSAGING_LOG',
});
