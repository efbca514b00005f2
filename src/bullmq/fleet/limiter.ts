/** BullMQ's limiter settings: at most `max` job starts per fixed window of `duration` ms. */
export interface LimiterSettings {
  readonly max: number;
  readonly duration: number;
}

/**
 * The BullMQ limiter a rate-limited worker runs with: one that never binds. BullMQ honours a
 * queue-wide pause (`queue.rateLimit(ms)`, what a 429's Retry-After sets) only in workers that
 * have a limiter, so the worker needs one; but pacing job starts is the fleet gate's job
 * (gate.ts), which admits each request on the datastore's clock. A limiter that also paced starts
 * would only cost rate: in fixed windows it must keep headroom below the limit (at 2/s it allowed
 * one start a second), and the gate holds the bound without it.
 *
 * `max` is the largest value both backends store (PostgreSQL keeps it as an `integer`).
 */
export const PAUSE_ONLY_LIMITER: LimiterSettings = Object.freeze({ max: 2_147_483_647, duration: 1_000 });
