/** BullMQ's limiter settings: at most `max` job starts per fixed window of `duration` ms. */
export interface LimiterSettings {
  readonly max: number;
  readonly duration: number;
}

/**
 * Time a window's turnover costs on top of its `duration`: a rate-limited worker sleeps until the
 * limiter's key expires, then asks Redis again (timer lateness plus a round trip). Used only to
 * compare candidate settings, never as a bound.
 */
const TURNOVER_MS = 5;

/**
 * The BullMQ limiter for a tenant limit of `requestsPerSecond`, chosen so that no sliding second
 * can hold more than the limit. BullMQ counts job starts in FIXED windows: any sliding second
 * overlaps at most `floor(1000 / duration) + 1` windows, so `max * (floor(1000 / duration) + 1)`
 * starts can land in it. `(N, 1000)` lets up to 2N through in a second that straddles two windows;
 * a fine window (small `max`, short `duration`) keeps that bound at the limit while the average
 * stays close to it (test/bullmq/fleet/limiter.test.ts checks both over the whole range).
 *
 * For each `max`, the bound is kept `max` below the limit (a request reaches the service a little
 * after its job starts, and that jitter can pull one window's starts into a second that already
 * holds the bound), with the shortest `duration` that keeps it. Of those, the setting that starts
 * the most jobs a second once each window's turnover costs `TURNOVER_MS` is chosen: one start per
 * 21 ms loses a quarter of the limit to turnovers, two per 42 ms an eighth. Windows stay at least
 * 20 ms long (BullMQ's timers are not finer).
 */
export function limiterFor(requestsPerSecond: number): LimiterSettings {
  let best: LimiterSettings | undefined;
  let bestRate = 0;
  const first = Math.max(1, Math.floor(requestsPerSecond / 50));
  // Beyond four times the smallest `max`, windows only grow longer and the headroom larger.
  for (let max = first; max <= first * 4; max++) {
    const settings = settingsFor(requestsPerSecond, max);
    if (!settings) continue;
    const rate = (max * 1000) / (settings.duration + TURNOVER_MS);
    if (rate > bestRate) {
      best = settings;
      bestRate = rate;
    }
  }
  return best ?? { max: 1, duration: 1001 };
}

/** The shortest window for `max` starts per window that keeps every sliding second within `requestsPerSecond - max`. */
function settingsFor(requestsPerSecond: number, max: number): LimiterSettings | undefined {
  const budget = requestsPerSecond - max;
  // The largest number of whole windows a second may hold: max * (windows + 1) <= budget.
  const windows = Math.floor(budget / max) - 1;
  if (windows < 0) return undefined;
  // The shortest duration with floor(1000 / duration) <= windows.
  const duration = windows === 0 ? 1001 : Math.floor(1000 / (windows + 1)) + 1;
  return duration >= 20 || windows === 0 ? { max, duration } : undefined;
}

/** The most starts the limiter lets into any sliding second (the bound the service sees). */
export function peakPerSecond({ max, duration }: LimiterSettings): number {
  return max * (Math.floor(1000 / duration) + 1);
}
