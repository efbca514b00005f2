/**
 * The rate gate's policy: when may the next request start? Pure functions over an immutable
 * state and an injected time (`now`, ms on a monotonic clock), so the tests are exact.
 *
 * The algorithm, three limits taken together (the latest wins):
 *
 * 1. Fixed rate (`requestsPerSecond`): consecutive starts are at least `1000 / rps` ms apart,
 *    measured from the actual previous start. Hence never more than `rps` starts in any half-open
 *    second, whatever the concurrency.
 * 2. Pause (adaptive): a 429 with `Retry-After` (or `X-RateLimit-Reset`) holds every start until
 *    that time, capped at `maxPauseMs` (the retry policy's Retry-After cap) so nothing waits forever.
 * 3. Pacing (adaptive), from `X-RateLimit-Limit` (L) and `X-RateLimit-Remaining` (R), Laravel's
 *    fixed window (per minute by default, per second with `Limit::perSecond`), which sends no
 *    reset time except on a 429:
 *    - budget: each answer sets it to `R - (other requests in flight)`, since those may not have
 *      been counted yet; each start takes one.
 *    - window: a "refill" is an answer whose R exceeds the lowest R seen by more than the requests
 *      in flight (reordered answers differ by at most that much). Its arrival anchors the window:
 *      seen after the service opened it, so the window end we derive is late, i.e. safe. The
 *      window's length is learned from the gap between two refills, or from a 429's reset time
 *      measured from the last refill, rounded to Laravel's 1 s / 1 min / 1 h when close.
 *    - while the length is unknown, an exhausted budget waits `PROBE_MS` (the shortest window
 *      Laravel offers) from the anchor, then lets one probe through: it either shows a refill or
 *      gets a 429 whose reset teaches the length (measured from a refill: at most two 429s are
 *      spent on learning, in the first windows).
 *    - once the length is known: the first half of the budget may go at once (bursts stay fast);
 *      below half, the remaining budget is spread evenly over the time left in the window, and
 *      an exhausted budget waits for the window's end. At the end the budget is presumed full
 *      again until the next answer says otherwise. A long run thus settles just under L per window.
 */

/** Where a wait at the gate comes from, as `tenant-messaging:rate-limited` reports it. */
export type RateWaitSource = 'retry-after' | 'x-ratelimit-reset' | 'pacing' | 'fixed-rate';

/** The checked `rateLimit` option, plus the pause cap. */
export interface RateSettings {
  /** Minimum ms between starts, or undefined for no fixed cap. */
  readonly spacingMs: number | undefined;
  readonly adaptive: boolean;
  /** The longest pause a 429 may impose. */
  readonly maxPauseMs: number;
}

/** What the policy reads from one answer (the gate parses the headers). */
export interface RateAnswer {
  readonly status: number;
  /** `X-RateLimit-Limit`, when sent and a count. */
  readonly limit: number | undefined;
  /** `X-RateLimit-Remaining`, when sent and a count. */
  readonly remaining: number | undefined;
  /** On a 429: how long the service asked to wait, in ms, and which header said it. */
  readonly waitMs: number | undefined;
  readonly waitSource: 'retry-after' | 'x-ratelimit-reset';
}

export interface RateState {
  readonly settings: RateSettings;
  /** The earliest start the fixed rate allows. */
  readonly fixedAt: number;
  /** Nothing starts before this (a 429's pause). */
  readonly pausedUntil: number;
  readonly pauseSource: 'retry-after' | 'x-ratelimit-reset';
  /** `X-RateLimit-Limit` once seen; pacing is off until then. */
  readonly limit: number | undefined;
  /** Starts left in this window (estimate); `Infinity` until the service says. */
  readonly budget: number;
  /** The lowest `Remaining` seen in this window, for refill detection. */
  readonly lowest: number;
  /** The estimated end of the current window. */
  readonly windowEnd: number;
  /** When the last refill was seen (the anchor lengths are measured from); -Infinity before. */
  readonly refillSeenAt: number;
  /** The window's length once learned. */
  readonly windowMs: number | undefined;
  readonly lastStart: number;
}

/** The shortest window Laravel offers (`Limit::perSecond`): the probe interval while the length is unknown. */
export const PROBE_MS = 1_000;

/** Laravel's usual windows; a measured length within 10% of one is taken as that one. */
const STANDARD_WINDOWS = [1_000, 60_000, 3_600_000];

export function initialRateState(settings: RateSettings): RateState {
  return {
    settings,
    fixedAt: Number.NEGATIVE_INFINITY,
    pausedUntil: Number.NEGATIVE_INFINITY,
    pauseSource: 'retry-after',
    limit: undefined,
    budget: Number.POSITIVE_INFINITY,
    lowest: Number.POSITIVE_INFINITY,
    windowEnd: Number.POSITIVE_INFINITY,
    refillSeenAt: Number.NEGATIVE_INFINITY,
    windowMs: undefined,
    lastStart: Number.NEGATIVE_INFINITY,
  };
}

/** True when a start at any time is allowed and changes nothing that matters: the gate's fast path. */
export function isFree(state: RateState, now: number): boolean {
  return (
    state.settings.spacingMs === undefined && state.budget === Number.POSITIVE_INFINITY && state.pausedUntil <= now
  );
}

/** When the next request may start (`at <= now`: at once), and which limit decided it. */
export function nextStart(state: RateState, now: number): { readonly at: number; readonly source: RateWaitSource } {
  let at = now;
  let source: RateWaitSource = state.settings.spacingMs === undefined ? 'pacing' : 'fixed-rate';
  if (state.fixedAt > at) at = state.fixedAt;
  if (state.pausedUntil > at) {
    at = state.pausedUntil;
    source = state.pauseSource;
  }
  const paced = pacedStart(state, now);
  if (paced > at) {
    at = paced;
    source = 'pacing';
  }
  return { at, source };
}

/** The earliest start pacing allows (see the module comment). */
function pacedStart(state: RateState, now: number): number {
  const { budget, limit, windowEnd } = state;
  if (limit === undefined || budget === Number.POSITIVE_INFINITY || now >= windowEnd) return now;
  if (budget < 1) return windowEnd;
  if (state.windowMs === undefined || budget > limit / 2) return now;
  // Spread what is left evenly: the next start a share of the time left after the last one.
  const from = Math.max(state.lastStart, windowEnd - state.windowMs);
  return from + (windowEnd - from) / (budget + 1);
}

/** The state after a request starts at `now` (the gate calls it only when `nextStart` allowed it). */
export function onStart(state: RateState, now: number): RateState {
  const { spacingMs } = state.settings;
  let { budget, windowEnd } = state;
  if (state.limit !== undefined && budget !== Number.POSITIVE_INFINITY) {
    if (now >= windowEnd) {
      // The window presumably ended: a full budget once its length is known, else one probe.
      // The end stays provisional until an answer shows the refill and re-anchors it.
      budget = state.windowMs === undefined ? 1 : state.limit;
      windowEnd = now + (state.windowMs ?? PROBE_MS);
    }
    budget -= 1;
  }
  return {
    ...state,
    fixedAt: spacingMs === undefined ? state.fixedAt : now + spacingMs,
    budget,
    windowEnd,
    lastStart: now,
  };
}

/**
 * The state after an answer at `now`. `othersInFlight`: requests started and not yet answered,
 * this one excluded.
 */
export function onAnswer(state: RateState, answer: RateAnswer, now: number, othersInFlight: number): RateState {
  if (!state.settings.adaptive) return state;
  let next = state;
  if (answer.status === 429 && answer.waitMs !== undefined) {
    const until = now + Math.min(answer.waitMs, state.settings.maxPauseMs);
    next = {
      ...next,
      pausedUntil: Math.max(next.pausedUntil, until),
      pauseSource: until >= next.pausedUntil ? answer.waitSource : next.pauseSource,
      windowMs: next.windowMs ?? learnedFromPause(next, until),
    };
    if (next.limit !== undefined) next = { ...next, budget: 0, lowest: 0, windowEnd: until };
  }
  const { limit, remaining } = answer;
  const knownLimit = limit ?? next.limit;
  if (remaining === undefined || knownLimit === undefined || answer.status === 429) return next;
  const budget = remaining - othersInFlight;
  const first = next.limit === undefined;
  const refill = !first && remaining > next.lowest + othersInFlight;
  if (first || refill) {
    // This answer anchors a new window. The very first answer anchors it for lengths only when
    // its Remaining shows a fresh window (opened by this request); else the window may be old.
    const fresh = refill || remaining + othersInFlight >= knownLimit - 1;
    const windowMs =
      refill && next.refillSeenAt !== Number.NEGATIVE_INFINITY
        ? Math.min(next.windowMs ?? Number.POSITIVE_INFINITY, snapWindow(now - next.refillSeenAt))
        : next.windowMs;
    return {
      ...next,
      limit: knownLimit,
      budget,
      lowest: remaining,
      refillSeenAt: fresh ? now : next.refillSeenAt,
      windowMs,
      windowEnd: now + (windowMs ?? PROBE_MS),
    };
  }
  return {
    ...next,
    limit: knownLimit,
    budget: Math.min(next.budget, budget),
    lowest: Math.min(next.lowest, remaining),
  };
}

/** The window length a 429's reset time reveals, measured from the last refill seen. */
function learnedFromPause(state: RateState, until: number): number | undefined {
  if (state.refillSeenAt === Number.NEGATIVE_INFINITY) return undefined;
  return snapWindow(until - state.refillSeenAt);
}

/**
 * A measured window length, rounded to Laravel's usual window when within 10% of it. Below 2 s it
 * is taken as 1 s: a 429's `Retry-After` has whole seconds only, too coarse to tell more apart.
 */
export function snapWindow(measured: number): number {
  if (measured <= 2 * STANDARD_WINDOWS[0]!) return STANDARD_WINDOWS[0]!;
  for (const standard of STANDARD_WINDOWS) if (Math.abs(measured - standard) <= standard / 10) return standard;
  return measured;
}
