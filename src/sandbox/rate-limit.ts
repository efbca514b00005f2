import { ValidationError } from '../errors.js';

/**
 * A rate limit as Laravel's `Limit::perSecond(n)` or `Limit::perMinute(n)` declares it.
 *
 * @example
 * ```ts
 * sandbox.setRateLimit({ perSecond: 100 })
 * ```
 */
export type RateLimit = { readonly perSecond: number } | { readonly perMinute: number };

/** The headers and verdict of one rate-limited request. */
export interface RateVerdict {
  readonly allowed: boolean;
  readonly headers: Record<string, string>;
}

/** Requests allowed per window, and the window's length. */
interface Window {
  readonly max: number;
  readonly ms: number;
}

/**
 * `60`, `{ perMinute: 60 }` or `{ perSecond: 10 }` -> a window; null -> off. Anything else is a
 * ValidationError saying what is accepted.
 */
export function rateWindow(limit: RateLimit | number | null): Window | null {
  if (limit === null) return null;
  const [max, ms, unit] =
    typeof limit === 'number'
      ? [limit, 60_000, 'perMinute']
      : typeof limit === 'object' && 'perSecond' in limit && !('perMinute' in limit)
        ? [limit.perSecond, 1000, 'perSecond']
        : typeof limit === 'object' && 'perMinute' in limit && !('perSecond' in limit)
          ? [limit.perMinute, 60_000, 'perMinute']
          : [Number.NaN, 0, 'rateLimit'];
  if (!(Number.isInteger(max) && max >= 1)) {
    throw new ValidationError('Invalid sandbox rate limit', [
      {
        path: unit,
        message: `must be an integer >= 1 (got ${String(max)}): pass a number (per minute), { perSecond: n }, { perMinute: n }, or null to turn the limit off`,
      },
    ]);
  }
  return { max, ms };
}

/**
 * Laravel's `throttle` middleware, per API key: a fixed window opened by the key's first request.
 * Laravel counts in whole Unix seconds (its cache stores `now + decay` as an integer), so a
 * window runs from the start of the second of that first request: a per-second window therefore
 * ends at the next whole second. Every answer carries `X-RateLimit-Limit` and
 * `X-RateLimit-Remaining`; a refusal adds `Retry-After` (whole seconds, at least 1) and
 * `X-RateLimit-Reset` (Unix seconds), as Laravel does.
 */
export class RateLimiter {
  #window: Window | null;
  readonly #now: () => number;
  #windows = new Map<string, { end: number; hits: number }>();

  constructor(limit: RateLimit | number | null, now: () => number) {
    this.#window = rateWindow(limit);
    this.#now = now;
  }

  /** Changes the limit (null: off) and forgets every window. */
  set(limit: RateLimit | number | null): void {
    this.#window = rateWindow(limit);
    this.reset();
  }

  /** Forgets every window. */
  reset(): void {
    this.#windows.clear();
  }

  /** Counts one request of `key`; undefined when rate limiting is off. */
  hit(key: string): RateVerdict | undefined {
    const limit = this.#window;
    if (limit === null) return undefined;
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now >= window.end) {
      window = { end: Math.floor(now / 1000) * 1000 + limit.ms, hits: 0 };
      this.#windows.set(key, window);
    }
    const headers: Record<string, string> = { 'x-ratelimit-limit': String(limit.max) };
    if (window.hits >= limit.max) {
      headers['x-ratelimit-remaining'] = '0';
      headers['retry-after'] = String(Math.max(1, Math.ceil((window.end - now) / 1000)));
      headers['x-ratelimit-reset'] = String(Math.ceil(window.end / 1000));
      return { allowed: false, headers };
    }
    window.hits++;
    headers['x-ratelimit-remaining'] = String(limit.max - window.hits);
    return { allowed: true, headers };
  }
}
