import { ValidationError } from '../../errors.js';

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

/**
 * Requests allowed per window, and the window's length. An `aligned` window starts at the whole
 * second of the request that opens it (Laravel's decay in whole seconds); otherwise at that request.
 */
export interface WindowLimit {
  readonly max: number;
  readonly ms: number;
  readonly aligned: boolean;
}

/** One open fixed window: when it ends (ms) and the requests it counted. */
export interface WindowCount {
  end: number;
  hits: number;
}

/**
 * `60`, `{ perMinute: 60 }` or `{ perSecond: 10 }` -> a window; null -> off. Anything else is a
 * ValidationError saying what is accepted.
 */
export function rateWindow(limit: RateLimit | number | null): WindowLimit | null {
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
    throw new ValidationError(
      'Invalid sandbox rate limit',
      [
        {
          path: unit,
          message: `must be an integer >= 1 (got ${String(max)}): pass a number (per minute), { perSecond: n }, { perMinute: n }, or null to turn the limit off`,
        },
      ],
      { code: 'validation.options' },
    );
  }
  return { max, ms, aligned: true };
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
  #window: WindowLimit | null;
  readonly #now: () => number;
  #windows = new Map<string, WindowCount>();

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
    return limit === null ? undefined : countHit(this.#windows, key, limit, this.#now());
  }
}

/**
 * One request of `key` against its fixed window in `windows` (a window is opened when there is
 * none or it ended): Laravel's `tooManyAttempts` then `hit`, with the headers its `throttle`
 * middleware sends. A refusal is not counted.
 */
export function countHit(windows: Map<string, WindowCount>, key: string, limit: WindowLimit, now: number): RateVerdict {
  const window = openWindow(windows, key, limit, now);
  if (window.hits >= limit.max) return { allowed: false, headers: refusalHeaders(limit, window, now) };
  window.hits++;
  return {
    allowed: true,
    headers: { 'x-ratelimit-limit': String(limit.max), 'x-ratelimit-remaining': String(limit.max - window.hits) },
  };
}

/**
 * The headers of Laravel's 429 for a full window. `Retry-After` (whole seconds, at least 1) and
 * `X-RateLimit-Reset` (Unix seconds) never name a time before the window's end: a window of whole
 * seconds ends on one, another is rounded up.
 */
export function refusalHeaders(limit: WindowLimit, window: WindowCount, now: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit.max),
    'x-ratelimit-remaining': '0',
    'retry-after': String(Math.max(1, Math.ceil((window.end - now) / 1000))),
    'x-ratelimit-reset': String(Math.ceil(window.end / 1000)),
  };
}

/** The window of `key` at `now`: the open one, or a new one when there is none or it ended. */
export function openWindow(
  windows: Map<string, WindowCount>,
  key: string,
  limit: WindowLimit,
  now: number,
): WindowCount {
  let window = windows.get(key);
  if (!window || now >= window.end) {
    window = { end: (limit.aligned ? Math.floor(now / 1000) * 1000 : now) + limit.ms, hits: 0 };
    windows.set(key, window);
  }
  return window;
}
