/**
 * Every `code` an SDK error can carry. A code is a promise: it never changes meaning, and
 * programs and the bins branch on it instead of on the English of a message. What each means:
 * docs/troubleshooting.md#error-codes (the words stay out of the bundle a Worker ships).
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof MessagingError && error.code === 'not_found.route') console.error('check baseUrl')
 * }
 * ```
 */
export const ERROR_CODES = Object.freeze([
  'validation.options',
  'validation.params',
  'validation.rejected',
  'auth.invalid_key',
  'scope.missing',
  'not_found.route',
  'not_found.message_log',
  'not_found.resource',
  'rate_limit.exceeded',
  'server.error',
  'http.redirect',
  'http.status',
  'response.invalid',
  'network.refused',
  'network.dns',
  'network.unreachable',
  'network.tls',
  'network.reset',
  'network.failed',
  'network.timeout',
  'outcome.unknown',
  'send.outcome_unknown',
  'send.stopped',
  'delivery.timeout',
  'peer.missing',
  'webhook.missing_header',
  'webhook.malformed_header',
  'webhook.stale_timestamp',
  'webhook.future_timestamp',
  'webhook.bad_signature',
  'webhook.bad_body',
  'datastore.not_durable',
  'datastore.evicts',
  'datastore.forgot',
  'datastore.full',
  'datastore.rolled_back',
  'datastore.not_replicated',
  'datastore.schema_missing',
  'sdk.unclassified',
] as const);

/**
 * A stable, documented error code: see {@link ERROR_CODES} and docs/troubleshooting.md#error-codes.
 *
 * @example
 * ```ts
 * const code: ErrorCode = 'auth.invalid_key'
 * ```
 */
export type ErrorCode = (typeof ERROR_CODES)[number];
