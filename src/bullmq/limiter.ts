/** BullMQ's limiter settings: at most `max` job starts per fixed window of `duration` ms. */
export interface LimiterSettings {
  readonly max: number;
  readonly duration: number;
}

/**
 * The BullMQ limiter for a tenant limit of `requestsPerSecond`, chosen so that no sliding second
 * can hold more than the limit. BullMQ counts job starts in FIXED windows: any sliding second
 * overlaps at most `floor(1000 / duration) + 1` windows, so `max * (floor(1000 / duration) + 1)`
 * starts can land in it. `(N, 1000)` lets up to 2N through in a second that straddles two windows;
 * a fine window (small `max`, short `duration`) keeps that bound at the limit while the average
 * stays close to it (test/bullmq/limiter.test.ts checks both over the whole range).
 *
 * The bound is kept one window below the limit (see `budget`). `max` grows with the limit (one start per ~20 ms) so that very high limits do not need windows
 * shorter than BullMQ's timer resolution.
 */
export function limiterFor(requestsPerSecond: number): LimiterSettings {
  const max = Math.max(1, Math.floor(requestsPerSecond / 50));
  // One window of headroom: a request reaches the service a little after its job starts, and that
  // jitter can pull one more start into a second that already holds the bound.
  const budget = requestsPerSecond - max;
  // The largest number of whole windows a second may hold: max * (windows + 1) <= budget.
  const windows = Math.floor(budget / max) - 1;
  // The shortest duration with floor(1000 / duration) <= windows.
  const duration = windows <= 0 ? 1001 : Math.floor(1000 / (windows + 1)) + 1;
  return { max, duration };
}

/** The most starts the limiter lets into any sliding second (the bound the service sees). */
export function peakPerSecond({ max, duration }: LimiterSettings): number {
  return max * (Math.floor(1000 / duration) + 1);
}
