import { APIError } from '../../api-error.js';
import { APIConnectionError } from '../../errors.js';

/** What the retry policy needs to know about a failed attempt. */
export interface FailedAttempt {
  /** The typed error the attempt produced. */
  readonly error: unknown;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Whether repeating the request is harmless (every GET). */
  readonly idempotent: boolean;
  /** Whether the request body can be produced again (not a half-read one-shot stream). */
  readonly replayable: boolean;
}

/**
 * Tunables of the retry policy. The attempt budget (`maxRetries`) is not among them: the retry
 * loop (retry-loop.ts) counts it, in one place, and asks the policy only about attempts the
 * budget still allows.
 */
export interface RetryPolicy {
  /** @default 500 */
  readonly baseDelayMs: number;
  /** @default 8000 */
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is raised with `retryAfter` set. @default 60000 */
  readonly maxRetryAfterMs: number;
}

/** The policy's answer. `reason` says why, for logs and tests. */
export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly reason: string }
  | { readonly retry: false; readonly reason: string };

/** Statuses meaning "try again later" for a request that changes nothing. */
function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Decides whether a failed attempt is retried, and after how long. A pure function: the random
 * source is injected so the tests are exact.
 *
 * Why sends are different: the API has no idempotency key, so repeating a POST that may have
 * reached the service can send the same message twice. A send is retried only when the service
 * certainly did not process it: the connection was never made, or it answered 429.
 */
export function decideRetry(failed: FailedAttempt, policy: RetryPolicy, random: () => number): RetryDecision {
  if (!failed.replayable) return { retry: false, reason: 'the request body was a one-shot stream' };
  const { error } = failed;

  if (error instanceof APIConnectionError) {
    if (failed.idempotent) return backoff(failed.attempt, policy, random, 'connection failed');
    return error.neverSent
      ? backoff(failed.attempt, policy, random, 'connection never established')
      : { retry: false, reason: 'the request may have reached the service' };
  }

  if (error instanceof APIError) {
    const retryable = failed.idempotent ? isTransientStatus(error.status) : error.status === 429;
    if (!retryable) return { retry: false, reason: `HTTP ${error.status} is not retried for this request` };
    if (error.retryAfter !== undefined) {
      if (error.retryAfter > policy.maxRetryAfterMs) return { retry: false, reason: 'Retry-After is beyond the cap' };
      return { retry: true, delayMs: error.retryAfter, reason: 'the service asked to wait' };
    }
    return backoff(failed.attempt, policy, random, `HTTP ${error.status}`);
  }

  return { retry: false, reason: 'not a transient failure' };
}

/** Exponential backoff with "equal jitter": half the delay fixed, half random, capped. */
function backoff(attempt: number, policy: RetryPolicy, random: () => number, reason: string): RetryDecision {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return { retry: true, delayMs: Math.round(exp / 2 + (exp / 2) * random()), reason };
}

/** The default tunables. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});
