import { MessagingError } from './messaging-error.js';

/** The codes of a failed connection: what the network said, in a word (see `ERROR_CODES`). */
export type ConnectionErrorCode =
  | 'network.refused'
  | 'network.dns'
  | 'network.unreachable'
  | 'network.tls'
  | 'network.reset'
  | 'network.failed'
  | 'network.timeout';

/** Options of `APIConnectionError`: the cause, whether the request certainly never left, and what failed. */
export interface ConnectionErrorOptions extends ErrorOptions {
  /** @default false */
  readonly neverSent?: boolean | undefined;
  /** @default 'network.failed' */
  readonly code?: ConnectionErrorCode | undefined;
}

/**
 * Raised when the service could not be reached, or the connection failed before a full response
 * arrived. `code` says how: `network.refused`, `network.dns`, `network.unreachable`,
 * `network.tls`, `network.reset` or `network.failed` (`network.timeout` for an `APITimeoutError`).
 *
 * @example
 * ```ts
 * if (error instanceof APIConnectionError && error.neverSent) console.log('safe to send again')
 * ```
 */
export class APIConnectionError extends MessagingError {
  /**
   * True when the connection was never established (refused, DNS failure, connect timeout), so not
   * one byte of the request reached the service; false when it may have.
   * @default false
   */
  readonly neverSent: boolean;

  constructor(message = 'Could not reach the Tenant Messaging API.', options?: ConnectionErrorOptions) {
    super(message, { cause: options?.cause, code: options?.code ?? 'network.failed' });
    this.neverSent = options?.neverSent === true;
  }
}

/** Options of `APITimeoutError`: how many attempts timed out, and how long they took in all. */
export interface TimeoutErrorOptions extends ErrorOptions {
  /** @default false */
  readonly neverSent?: boolean | undefined;
  /** @default 1 */
  readonly attempts?: number | undefined;
  /** @default timeoutMs */
  readonly elapsedMs?: number | undefined;
}

/**
 * Raised when a request did not complete within its `timeout` (connection, headers and body
 * together), `code` `network.timeout`. After retries (reads are retried), `attempts` says how
 * many timed out and `elapsedMs` how long the call took in all, waits between attempts included.
 *
 * @example
 * ```ts
 * if (error instanceof APITimeoutError) console.warn(`${error.attempts} × ${error.timeoutMs} ms`)
 * ```
 */
export class APITimeoutError extends APIConnectionError {
  /** The deadline of each attempt, in ms. */
  readonly timeoutMs: number;
  /**
   * How many attempts the call made, the last of which timed out.
   * @default 1
   */
  readonly attempts: number;
  /**
   * How long the call took in all, measured, in ms.
   * @default timeoutMs
   */
  readonly elapsedMs: number;

  constructor(timeoutMs: number, options?: TimeoutErrorOptions) {
    const attempts = options?.attempts ?? 1;
    const elapsedMs = Math.round(options?.elapsedMs ?? timeoutMs);
    const what =
      attempts > 1
        ? `The request did not complete: ${attempts} attempts over ${ms(elapsedMs)} (waits between them included), the last cut off after its ${ms(timeoutMs)} timeout.`
        : `The request did not complete within ${ms(timeoutMs)}.`;
    super(`${what} Raise the \`timeout\` option if the service is slow, or check connectivity to the base URL.`, {
      cause: options?.cause,
      neverSent: options?.neverSent,
      code: 'network.timeout',
    });
    this.timeoutMs = timeoutMs;
    this.attempts = attempts;
    this.elapsedMs = elapsedMs;
  }
}

/** `2,815 ms`: a duration as a message writes it. */
function ms(value: number): string {
  return `${Math.round(value).toLocaleString('en-US')} ms`;
}
