import {
  APIConnectionError,
  APITimeoutError,
  InternalServerError,
  type RateLimitError,
  ValidationError,
} from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, decideRetry, type FailedAttempt } from '../../../src/core/call/retry.js';
import { errorFromResponse } from '../../../src/error-from-response.js';
import { ME } from '../../helpers/answered.js';

const policy = DEFAULT_RETRY_POLICY;
const status = (code: number, headers: Record<string, string> = {}) =>
  errorFromResponse(code, '{"message":"x"}', headers, ME);
const read = (error: unknown, attempt = 1): FailedAttempt => ({
  error,
  attempt,
  idempotent: true,
  replayable: true,
});
const send = (error: unknown): FailedAttempt => ({ error, attempt: 1, idempotent: false, replayable: true });

describe('decideRetry: reads', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries HTTP %i', (code) => {
    expect(decideRetry(read(status(code)), policy, () => 0).retry).toBe(true);
  });
  it.each([400, 401, 403, 404, 409, 422])('does not retry HTTP %i', (code) => {
    expect(decideRetry(read(status(code)), policy, () => 0).retry).toBe(false);
  });
  it('retries connection errors and timeouts', () => {
    expect(decideRetry(read(new APIConnectionError()), policy, () => 0).retry).toBe(true);
    expect(decideRetry(read(new APITimeoutError(10)), policy, () => 0).retry).toBe(true);
  });
  it('does not retry validation errors or unknown errors', () => {
    expect(decideRetry(read(new ValidationError('x', [])), policy, () => 0).retry).toBe(false);
    expect(decideRetry(read(new TypeError('bug')), policy, () => 0).retry).toBe(false);
  });
  it('backs off exponentially with equal jitter, capped', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => {
      const low = decideRetry(read(status(503), attempt), policy, () => 0);
      const high = decideRetry(read(status(503), attempt), policy, () => 1);
      return [low.retry && low.delayMs, high.retry && high.delayMs];
    });
    expect(delays).toEqual([
      [250, 500],
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [4000, 8000],
    ]);
  });
  it('honours Retry-After, and gives up at once beyond the cap', () => {
    expect(decideRetry(read(status(429, { 'retry-after': '3' })), policy, () => 0)).toMatchObject({
      retry: true,
      delayMs: 3000,
    });
    const far = status(429, { 'retry-after': '3600' }) as RateLimitError;
    expect(far.retryAfter).toBe(3_600_000);
    expect(decideRetry(read(far), policy, () => 0).retry).toBe(false);
  });
});

describe('decideRetry: sends (not idempotent)', () => {
  it('retries only when the connection was never made', () => {
    expect(decideRetry(send(new APIConnectionError('x', { neverSent: true })), policy, () => 0).retry).toBe(true);
    expect(decideRetry(send(new APIConnectionError('x')), policy, () => 0).retry).toBe(false);
    expect(decideRetry(send(new APITimeoutError(10)), policy, () => 0).retry).toBe(false);
  });
  it('retries 429 (the service did not process it) but never 5xx', () => {
    expect(decideRetry(send(status(429)), policy, () => 0).retry).toBe(true);
    for (const code of [500, 502, 503, 504, 408])
      expect(decideRetry(send(status(code)), policy, () => 0).retry).toBe(false);
  });
  it('never retries a one-shot body', () => {
    expect(decideRetry({ ...send(status(429)), replayable: false }, policy, () => 0).retry).toBe(false);
  });
  it('InternalServerError is what 5xx maps to', () => {
    expect(status(503)).toBeInstanceOf(InternalServerError);
  });
});
