/** The headers and verdict of one rate-limited request. */
export interface RateVerdict {
  readonly allowed: boolean;
  readonly headers: Record<string, string>;
}

/**
 * Laravel's `throttle` middleware, per API key: a fixed window of one minute opened by the
 * key's first request. Every answer carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`;
 * a refusal adds `Retry-After` (seconds) and `X-RateLimit-Reset` (Unix seconds), as Laravel does.
 */
export class RateLimiter {
  /** Requests per minute per key; null when off. */
  perMinute: number | null;
  readonly #now: () => number;
  #windows = new Map<string, { start: number; hits: number }>();

  constructor(perMinute: number | null, now: () => number) {
    this.perMinute = perMinute;
    this.#now = now;
  }

  /** Forgets every window. */
  reset(): void {
    this.#windows.clear();
  }

  /** Counts one request of `key`; undefined when rate limiting is off. */
  hit(key: string): RateVerdict | undefined {
    const limit = this.perMinute;
    if (limit === null) return undefined;
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, hits: 0 };
      this.#windows.set(key, window);
    }
    const headers: Record<string, string> = { 'x-ratelimit-limit': String(limit) };
    if (window.hits >= limit) {
      const resetAt = window.start + 60_000;
      headers['x-ratelimit-remaining'] = '0';
      headers['retry-after'] = String(Math.max(1, Math.ceil((resetAt - now) / 1000)));
      headers['x-ratelimit-reset'] = String(Math.ceil(resetAt / 1000));
      return { allowed: false, headers };
    }
    window.hits++;
    headers['x-ratelimit-remaining'] = String(limit - window.hits);
    return { allowed: true, headers };
  }
}
