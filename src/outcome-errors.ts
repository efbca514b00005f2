import { causeSentence } from './cause-sentence.js';
import { MessagingError } from './messaging-error.js';
import type { MessageLog } from './types/message-log.js';
import type { SentParams } from './types/send.js';

/**
 * Raised when the deadline of `waitForDelivery` passed before the wanted `delivery_status` was
 * seen (`code` `delivery.timeout`). `lastLog` holds the last MessageLog read, if any read succeeded.
 *
 * @example
 * ```ts
 * try {
 *   await client.waitForDelivery(log.id, { timeout: 60_000 })
 * } catch (error) {
 *   if (error instanceof DeliveryTimeoutError) console.log(error.lastLog?.delivery_status) // 'sent'
 * }
 * ```
 */
export class DeliveryTimeoutError<Log = MessageLog> extends MessagingError {
  readonly messageLogId: number;
  readonly lastLog: Log | undefined;
  /** The wait's deadline, in ms. */
  readonly timeoutMs: number;
  /** The status that was waited for, e.g. `delivered`. */
  readonly until: string;

  constructor(messageLogId: number, timeoutMs: number, until: string, lastLog: Log | undefined, cause?: unknown) {
    const seen = lastLog as { delivery_status?: unknown } | undefined;
    const last = seen
      ? `The last delivery_status seen was '${String(seen.delivery_status)}'` +
        (seen.delivery_status === 'unknown'
          ? ' (the underlying chat message is missing or in a state the service does not recognise).'
          : '.')
      : 'No read of the message log succeeded.';
    super(
      `Message log ${messageLogId} did not reach '${until}' within ${timeoutMs} ms. ${last} Delivery is confirmed only when the recipient app reports receipt; poll again later or raise \`timeout\`.`,
      { cause, code: 'delivery.timeout' },
    );
    this.messageLogId = messageLogId;
    this.lastLog = lastLog;
    this.timeoutMs = timeoutMs;
    this.until = until;
  }
}

/**
 * Raised when a request that changes something may have reached the service but no answer says
 * what happened (a timeout, a reset while waiting for the answer, a 5xx or 3xx): it may or may
 * not have been processed (`code` `outcome.unknown`). The SDK never retries such a request.
 * `client.request()` raises it for methods other than GET and HEAD; `messages.send` raises its
 * subclass `SendOutcomeUnknownError`. `cause` holds the underlying error.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof OutcomeUnknownError) await reconcile() // look before doing it again
 * }
 * ```
 */
export class OutcomeUnknownError extends MessagingError {
  constructor(message: string, cause: Error, code: 'outcome.unknown' | 'send.outcome_unknown' = 'outcome.unknown') {
    super(message, { cause, code });
  }
}

/**
 * Raised by `messages.send` when the request may have reached the service but no answer says
 * what happened (`code` `send.outcome_unknown`): a timeout, a connection reset while waiting for
 * the answer, a 5xx from the service or a proxy. The message may or may not have been sent. The
 * API has no idempotency key, so the SDK never retries such a send; check with
 * `messages.reconcile()` before sending again. `cause` holds the underlying error.
 *
 * @example
 * ```ts
 * catch (err) {
 *   if (err instanceof SendOutcomeUnknownError && err.params) {
 *     const outcome = await client.messages.reconcile(err.params, { since: err.startedAt })
 *   }
 * }
 * ```
 */
export class SendOutcomeUnknownError extends OutcomeUnknownError {
  /**
   * The send's parameters as checked (media described by name, size and type, never its bytes),
   * for `messages.reconcile(error.params, { since: error.startedAt })`.
   */
  readonly params: SentParams | undefined;
  /** When the send started: the earliest its log's `sent_at` can be. */
  readonly startedAt: Date;

  constructor(cause: Error, sent?: { readonly params: SentParams; readonly startedAt: Date }) {
    super(
      `The message may have been sent: the request may have reached the service, but no answer says what happened. ${causeSentence(cause.message)}\n` +
        'The SDK did not retry, because the API has no idempotency key and a retry could send it twice. ' +
        'Before sending again, reconcile: await client.messages.reconcile(error.params, { since: error.startedAt }).',
      cause,
      'send.outcome_unknown',
    );
    this.params = sent?.params;
    this.startedAt = sent?.startedAt ?? new Date();
  }
}
