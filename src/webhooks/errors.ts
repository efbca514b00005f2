import { MessagingError } from '../errors.js';

/** Why a webhook was refused. */
export type WebhookRefusal =
  /** `webhook-id`, `webhook-timestamp` or `webhook-signature` is missing. */
  | 'missing-header'
  /** `webhook-timestamp` is not a number of seconds. */
  | 'malformed-header'
  /** Signed longer ago than the tolerance: a replay, or a clock far behind. */
  | 'stale-timestamp'
  /** Signed further in the future than the tolerance: a clock far ahead. */
  | 'future-timestamp'
  /** No `v1` signature in the header matches the body with this secret. */
  | 'bad-signature'
  /** The signature matches, but the body is not a JSON event. */
  | 'bad-body';

/** A `WebhookVerificationError`'s code: its reason, as the codes write it (`webhook.bad_signature`). */
type WebhookCode =
  `webhook.${'missing_header' | 'malformed_header' | 'stale_timestamp' | 'future_timestamp' | 'bad_signature' | 'bad_body'}`;

/**
 * A webhook that failed verification: `reason` says why, and `code` too (`webhook.bad_signature`). Its message never contains the secret.
 *
 * @example
 * ```ts
 * try { await verifyWebhook(body, req.headers, secret) }
 * catch (error) { if (error instanceof WebhookVerificationError) res.status(400).send(error.reason) }
 * ```
 */
export class WebhookVerificationError extends MessagingError {
  /** Why it was refused. */
  readonly reason: WebhookRefusal;

  constructor(reason: WebhookRefusal, message: string) {
    super(message, { code: `webhook.${reason.replace('-', '_')}` as WebhookCode });
    this.reason = reason;
  }
}
