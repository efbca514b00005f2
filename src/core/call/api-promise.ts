import { monotonicNow } from '../../internal/waiting/clock.js';
import type { APIPromise, RateLimitInfo, ResponseInfo } from '../../types/response.js';

/** What a call learns about its answers as it runs; read by `.withResponse()` and the trace. */
export interface CallRecord {
  attempts: number;
  status: number | undefined;
  headers: Readonly<Record<string, string>> | undefined;
  readonly startedAt: number;
  durationMs: number;
}

export function newCallRecord(): CallRecord {
  return { attempts: 0, status: undefined, headers: undefined, startedAt: monotonicNow(), durationMs: 0 };
}

/**
 * Gives a native promise its `.withResponse()`. The promise itself is left as it is, so a plain
 * `await` costs what it always did; the response info is built only when asked for.
 */
export function apiPromise<T>(promise: Promise<T>, record: CallRecord): APIPromise<T> {
  const api = promise as APIPromise<T>;
  api.withResponse = () => promise.then((data) => ({ data, response: responseInfo(record) }));
  return api;
}

function responseInfo(record: CallRecord): ResponseInfo {
  const headers = record.headers ?? {};
  return {
    status: record.status ?? 0,
    headers,
    requestId: headers['x-request-id'] ?? headers['request-id'],
    rateLimit: rateLimitOf(headers, Date.now()),
    attempts: record.attempts,
    durationMs: Math.round(record.durationMs),
  };
}

/** The rate limit headers of an answer, or null when it sent none. */
export function rateLimitOf(headers: Readonly<Record<string, string>>, now: number): RateLimitInfo | null {
  const limit = count(headers['x-ratelimit-limit']);
  const remaining = count(headers['x-ratelimit-remaining']);
  const reset = count(headers['x-ratelimit-reset']);
  const retryAfter = headers['retry-after']?.trim();
  let resetAt: Date | null = null;
  if (reset !== null) resetAt = new Date(reset * 1000);
  else if (retryAfter && /^\d{1,10}$/.test(retryAfter)) resetAt = new Date(now + Number(retryAfter) * 1000);
  else if (retryAfter && retryAfter.length < 100 && !Number.isNaN(Date.parse(retryAfter)))
    resetAt = new Date(Date.parse(retryAfter));
  if (limit === null && remaining === null && resetAt === null) return null;
  return { limit, remaining, resetAt };
}

function count(value: string | undefined): number | null {
  const text = value?.trim();
  return text && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/** A call refused before it started, as an `APIPromise` that rejects (never a synchronous throw). */
export function rejectedCall<T>(error: unknown): APIPromise<T> {
  return apiPromise(Promise.reject(error), newCallRecord());
}
