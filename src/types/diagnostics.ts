/**
 * The channel names the SDK publishes on, as subscribers write them. Kept with the messages' types,
 * apart from the code that publishes, so the public declarations never reach `core/`.
 *
 * @example
 * ```ts
 * import { subscribe } from 'node:diagnostics_channel'
 * import { CHANNEL_NAMES } from 'tenant-messaging'
 * subscribe(CHANNEL_NAMES.retry, (message) => console.log('retry', message))
 * ```
 */
export const CHANNEL_NAMES = Object.freeze({
  request: 'tenant-messaging:request',
  retry: 'tenant-messaging:retry',
  rateLimited: 'tenant-messaging:rate-limited',
  outcomeUnknown: 'tenant-messaging:outcome-unknown',
  poll: 'tenant-messaging:poll',
});

/**
 * What the SDK publishes on `node:diagnostics_channel`. Free when nobody subscribes: every
 * publication is guarded by `hasSubscribers`. No message carries the API key or a request or
 * response body (an `error` is the typed error the caller gets, as the caller gets it).
 *
 * @example
 * ```ts
 * import { tracingChannel } from 'node:diagnostics_channel'
 * tracingChannel('tenant-messaging:request').subscribe({
 *   start(ctx) { console.log('start', ctx.endpoint) },
 *   asyncEnd(ctx) { console.log('end', ctx.endpoint, ctx.status, ctx.attempts) },
 *   error(ctx) { console.log('failed', ctx.endpoint, ctx.error) },
 *   end() {}, asyncStart() {},
 * })
 * ```
 */
export interface RequestTrace {
  /** The endpoint table's name, e.g. `sendMessage`; `request` for `client.request()`. */
  readonly endpoint: string;
  /** The HTTP method, e.g. `POST`. */
  readonly method: string;
  /** The path template below `/api/v1`, e.g. `/messages/{messageLog}`: never the filled path. */
  readonly urlTemplate: string;
  /** The base URL's host (and port, when not the scheme's default), e.g. `acme.example.com`. */
  readonly serverAddress: string;
  /** Attempts made so far (1 for a call that was not retried). */
  attempts: number;
  /** The status of the last answer, once there was one. */
  status: number | undefined;
  /** The `x-request-id` of the last answer, when the service sent one. */
  requestId: string | undefined;
  /** Set by diagnostics_channel when the call fails: the typed error the caller gets. */
  error?: unknown;
  /** Set by diagnostics_channel when the call succeeds: what the caller gets. */
  result?: unknown;
  /**
   * A subscriber's `start` handler may set this to run the call inside its own context (an
   * OpenTelemetry span made active, say), so that spans made during the call nest under it.
   * @default undefined
   */
  bindContext?: (<T>(run: () => T) => T) | undefined;
}

/** `tenant-messaging:retry`: a failed attempt is retried after `delayMs`. */
export interface RetryMessage {
  readonly endpoint: string;
  readonly method: string;
  readonly urlTemplate: string;
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  /** How long the SDK waits before the next attempt. */
  readonly delayMs: number;
  /** Why it retries, e.g. `HTTP 503` or `the service asked to wait`. */
  readonly reason: string;
  /** The typed error of the failed attempt. */
  readonly error: unknown;
}

/**
 * `tenant-messaging:rate-limited`: a request waits because of a rate limit: the service's 429
 * (published by the retry, or by the client's rate gate, which then holds every request), the
 * gate's pacing from `X-RateLimit-Limit`/`-Remaining`, the `rateLimit.requestsPerSecond` cap, or
 * a send's sender or recipient lane.
 */
export interface RateLimitedMessage {
  readonly endpoint: string;
  readonly urlTemplate: string;
  /** How long it waits (for a request queued at the gate, the expected wait). */
  readonly waitMs: number;
  /**
   * Where the wait came from: `Retry-After`, `X-RateLimit-Reset`, the SDK's backoff when a 429
   * said neither, the gate's `pacing` from the rate limit headers, the `fixed-rate` cap, or a
   * send's lane (`rateLimit.perSender`, `rateLimit.perRecipient`).
   */
  readonly source:
    | 'retry-after'
    | 'x-ratelimit-reset'
    | 'backoff'
    | 'pacing'
    | 'fixed-rate'
    | 'per-sender'
    | 'per-recipient';
}

/** `tenant-messaging:outcome-unknown`: a request that changes something may or may not have been processed. */
export interface OutcomeUnknownMessage {
  readonly endpoint: string;
  readonly method: string;
  readonly urlTemplate: string;
  /** The `OutcomeUnknownError` (or `SendOutcomeUnknownError`) the caller gets. */
  readonly error: unknown;
}

/** `tenant-messaging:poll`: one poll of a `waitForDelivery`. */
export interface PollMessage {
  readonly messageLogId: number;
  /** 1 for the first poll of the wait. */
  readonly poll: number;
  /** The status read, when the read succeeded. */
  readonly deliveryStatus: string | undefined;
  /** The typed error of a failed read (the wait may go on). */
  readonly error: unknown;
}
