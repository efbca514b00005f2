import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  initialRateState,
  isFree,
  nextStart,
  onAnswer,
  onStart,
  PROBE_MS,
  type RateAnswer,
  type RateState,
  snapWindow,
} from '../../../src/core/rate/rate-policy.js';

const ADAPTIVE = { spacingMs: undefined, adaptive: true, maxPauseMs: 60_000 };

function answer(status: number, limit?: number, remaining?: number, waitMs?: number): RateAnswer {
  return { status, limit, remaining, waitMs, waitSource: 'retry-after' };
}

describe('rate policy: fixed rate', () => {
  it('spaces starts 1000/rps ms apart from the actual previous start', () => {
    let state = initialRateState({ ...ADAPTIVE, spacingMs: 100 });
    expect(isFree(state, 0)).toBe(false);
    expect(nextStart(state, 0)).toEqual({ at: 0, source: 'fixed-rate' });
    state = onStart(state, 0);
    expect(nextStart(state, 30)).toEqual({ at: 100, source: 'fixed-rate' });
    state = onStart(state, 105);
    expect(nextStart(state, 106).at).toBe(205);
  });

  it('never lets more than rps starts into any half-open second (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 50, maxLength: 300 }),
        (rps, arrivals) => {
          let state = initialRateState({ ...ADAPTIVE, spacingMs: 1000 / rps });
          const starts: number[] = [];
          let now = 0;
          // Callers arrive with the given gaps; each starts as soon as the policy allows.
          for (const gap of arrivals) {
            now = Math.max(now + gap, nextStart(state, now + gap).at);
            state = onStart(state, now);
            starts.push(now);
          }
          for (let i = 0, j = 0; i < starts.length; i++) {
            while ((starts[i] as number) - (starts[j] as number) >= 1000) j++;
            expect(i - j + 1).toBeLessThanOrEqual(Math.max(1, Math.ceil(rps)));
          }
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });
});

describe('rate policy: 429 pause', () => {
  it('holds every start until the Retry-After time, with its source', () => {
    let state = initialRateState(ADAPTIVE);
    expect(isFree(state, 0)).toBe(true);
    state = onAnswer(state, { ...answer(429, undefined, undefined, 3_000) }, 10, 4);
    expect(isFree(state, 11)).toBe(false);
    expect(nextStart(state, 11)).toEqual({ at: 3_010, source: 'retry-after' });
    expect(nextStart(state, 3_010).at).toBe(3_010);
    expect(isFree(state, 3_010)).toBe(true);
  });

  it('caps the pause at maxPauseMs and never shortens a longer pause', () => {
    let state = initialRateState(ADAPTIVE);
    state = onAnswer(state, { ...answer(429, undefined, undefined, 600_000), waitSource: 'x-ratelimit-reset' }, 0, 0);
    expect(nextStart(state, 1)).toEqual({ at: 60_000, source: 'x-ratelimit-reset' });
    state = onAnswer(state, answer(429, undefined, undefined, 1_000), 5, 0);
    expect(nextStart(state, 6).at).toBe(60_000);
  });

  it('ignores everything when not adaptive, but keeps the fixed rate', () => {
    const start = initialRateState({ ...ADAPTIVE, adaptive: false, spacingMs: 50 });
    expect(onAnswer(start, answer(429, 10, 0, 5_000), 0, 0)).toBe(start);
    expect(onAnswer(start, answer(200, 10, 0), 0, 0)).toBe(start);
  });
});

describe('rate policy: pacing from X-RateLimit-Limit / Remaining', () => {
  it('goes at once while the budget lasts, counting requests still in flight', () => {
    let state = onAnswer(initialRateState(ADAPTIVE), answer(200, 10, 9), 0, 0);
    expect(state.budget).toBe(9);
    state = onAnswer(state, answer(200, 10, 5), 1, 3);
    expect(state.budget).toBe(2);
    state = onStart(onStart(state, 2), 2);
    expect(state.budget).toBe(0);
    // Window length unknown: wait the probe interval from the anchor (the first, fresh answer).
    expect(nextStart(state, 3)).toEqual({ at: PROBE_MS, source: 'pacing' });
  });

  it('lets one probe through at the window end, then learns the length from the refill', () => {
    let state = onAnswer(initialRateState(ADAPTIVE), answer(200, 10, 9), 0, 0);
    state = onAnswer(state, answer(200, 10, 0), 5, 0);
    state = onStart(state, PROBE_MS);
    expect(state.budget).toBe(0);
    expect(nextStart(state, PROBE_MS + 1).at).toBe(2 * PROBE_MS);
    // The probe's answer shows a refill 1003 ms after the first fresh answer: a 1 s window.
    state = onAnswer(state, answer(200, 10, 9), PROBE_MS + 3, 0);
    expect(state.windowMs).toBe(1_000);
    expect(state.windowEnd).toBe(2 * PROBE_MS + 3);
  });

  it('learns a one-minute window from the 429 a probe gets', () => {
    let state = onAnswer(initialRateState(ADAPTIVE), answer(200, 60, 59), 0, 0);
    state = onAnswer(state, answer(200, 60, 0), 100, 0);
    state = onStart(state, PROBE_MS);
    state = onAnswer(state, answer(429, 60, 0, 59_000), PROBE_MS + 2, 0);
    expect(state.windowMs).toBe(60_000);
    expect(nextStart(state, PROBE_MS + 3)).toEqual({ at: 60_002, source: 'retry-after' });
    // At the pause's end the budget is presumed full again.
    state = onStart(state, 60_002);
    expect(state.budget).toBe(59);
  });

  it('spreads the second half of the budget over the time left', () => {
    let state: RateState = { ...onAnswer(initialRateState(ADAPTIVE), answer(200, 10, 9), 0, 0), windowMs: 1_000 };
    state = onAnswer(state, answer(200, 10, 3), 100, 0);
    expect(state.budget).toBe(3);
    state = onStart(state, 100);
    // 2 left, 900 ms left after the last start: the next at a third of it.
    expect(nextStart(state, 100)).toEqual({ at: 400, source: 'pacing' });
  });

  it('snaps measured lengths to Laravel windows', () => {
    expect(snapWindow(1)).toBe(1_000);
    expect(snapWindow(1_900)).toBe(1_000);
    expect(snapWindow(57_000)).toBe(60_000);
    expect(snapWindow(3_500_000)).toBe(3_600_000);
    expect(snapWindow(10_000)).toBe(10_000);
  });
});

/**
 * A closed loop on a simulated clock: `concurrency` workers call as fast as the policy lets them
 * against Laravel's fixed window (opened by the first request after the last one expired), with
 * a constant round trip. Returns the 429s and the successes.
 */
function simulate(run: { limit: number; windowMs: number; concurrency: number; rttMs: number; durationMs: number }) {
  let state = initialRateState(ADAPTIVE);
  let opened = Number.NEGATIVE_INFINITY;
  let hits = 0;
  let inFlight = 0;
  let idle = run.concurrency;
  let refused = 0;
  let served = 0;
  const due: { at: number; answer: RateAnswer }[] = [];
  for (let now = 0; now < run.durationMs; now++) {
    while (due.length > 0 && (due[0] as { at: number }).at <= now) {
      const { answer: a } = due.shift() as { answer: RateAnswer };
      inFlight--;
      idle++;
      state = onAnswer(state, a, now, inFlight);
    }
    while (idle > 0 && nextStart(state, now).at <= now) {
      state = onStart(state, now);
      idle--;
      inFlight++;
      const arrival = now + run.rttMs / 2;
      if (arrival - opened >= run.windowMs) {
        opened = arrival;
        hits = 0;
      }
      let a: RateAnswer;
      if (hits >= run.limit) {
        refused++;
        const waitMs = Math.max(1, Math.ceil((opened + run.windowMs - arrival) / 1000)) * 1000;
        a = answer(429, run.limit, 0, waitMs);
      } else {
        hits++;
        served++;
        a = answer(200, run.limit, run.limit - hits);
      }
      due.push({ at: now + run.rttMs, answer: a });
    }
  }
  return { refused, served };
}

describe('rate policy: a long run against a fixed window settles just under the limit', () => {
  it('per second: no 429 once learned, at least 80% of the limit used', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 100 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 80 }),
        (limit, concurrency, rttMs) => {
          const seconds = 20;
          const { refused, served } = simulate({
            limit,
            windowMs: 1_000,
            concurrency: Math.min(concurrency, limit),
            rttMs,
            durationMs: seconds * 1_000,
          });
          expect(refused).toBeLessThanOrEqual(2);
          expect(served).toBeLessThanOrEqual(limit * seconds);
          // Bounded by the round trip when the workers are too few to use the limit.
          const reachable = Math.min(limit, (Math.min(concurrency, limit) * 1_000) / rttMs);
          expect(served).toBeGreaterThanOrEqual(0.8 * reachable * (seconds - 3));
        },
      ),
      { seed: 11, numRuns: 40 },
    );
  });

  it('per minute: at most two 429s spent on learning, then none', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 120 }), fc.integer({ min: 1, max: 8 }), (limit, concurrency) => {
        const minutes = 10;
        const { refused, served } = simulate({
          limit,
          windowMs: 60_000,
          concurrency: Math.min(concurrency, limit),
          rttMs: 20,
          durationMs: minutes * 60_000,
        });
        expect(refused).toBeLessThanOrEqual(2);
        expect(served).toBeGreaterThanOrEqual(limit * (minutes - 2));
      }),
      { seed: 12, numRuns: 10 },
    );
  });
});
