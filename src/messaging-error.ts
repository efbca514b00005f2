import type { ErrorCode } from './error-codes.js';

/** What every SDK error may be given: its `cause`, and its code. */
export interface MessagingErrorOptions extends ErrorOptions {
  /** @default 'sdk.unclassified' */
  readonly code?: ErrorCode | undefined;
}

/**
 * Base class of every error the SDK throws, so one `instanceof MessagingError` catches them all.
 * Its `code` says what happened in a word a program can branch on (see `ERROR_CODES`).
 *
 * @example
 * ```ts
 * try { await client.messages.send(params) }
 * catch (err) { if (err instanceof MessagingError) log.warn(err.code, err.message) }
 * ```
 */
export class MessagingError extends Error {
  /**
   * What happened, as a stable documented code, e.g. `auth.invalid_key` or `not_found.route`.
   * @default 'sdk.unclassified'
   * @example `if (error.code === 'delivery.timeout') retryLater(error.messageLogId)`
   */
  readonly code: ErrorCode;

  constructor(message?: string, options?: MessagingErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = options?.code ?? 'sdk.unclassified';
  }

  override get name(): string {
    return this.constructor.name;
  }
}
