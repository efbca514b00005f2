import fc from 'fast-check';
import {
  APITimeoutError,
  DeliveryTimeoutError,
  type MessageLog,
  type ResponseInfo,
  type WithResponse,
} from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { nextPollDelay, pollDelivery } from '../../../src/core/polling/poll.js';
import { PollScheduler, type SchedulerClock } from '../../../src/core/polling/poll-scheduler.js';

/** The answer behind a read in these clock-only tests. */
const RESPONSE: ResponseInfo = {
  status: 200,
  headers: {},
  requestId: undefined,
  rateLimit: null,
  attempts: 1,
  durationMs: 0,
};

/** A manual clock: time moves only when the test says so, and timers fire in order. */
function manualClock() {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let nextId = 1;
  const stats = { mostTimers: 0 };
  const clock: SchedulerClock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, run });
      stats.mostTimers = Math.max(stats.mostTimers, timers.size);
      return id;
    },
    clearTimeout: (id) => timers.delete(id as number),
  };
  return {
    clock,
    timers,
    stats,
    async advance(ms: number) {
      // What is already settled runs first, at the current time.
      await new Promise((r) => setImmediate(r));
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
        await new Promise((r) => setImmediate(r));
      }
      now = end;
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('PollScheduler', () => {
  it('grants due polls in order, spaced by the rate cap', async () => {
    const { clock, advance } = manualClock();
    const scheduler = new PollScheduler({ maxConcurrent: 100, maxPerSecond: 10 }, clock);
    const started: number[] = [];
    for (let i = 0; i < 5; i++) {
      void scheduler.acquire(0, undefined, Number.POSITIVE_INFINITY).then((release) => {
        started.push(clock.now());
        release?.();
      });
    }
    await advance(0);
    await advance(1_000);
    expect(started).toEqual([0, 100, 200, 300, 400]);
  });

  it('never has more than maxConcurrent polls in flight', async () => {
    const { clock, advance } = manualClock();
    const scheduler = new PollScheduler({ maxConcurrent: 2, maxPerSecond: 1_000 }, clock);
    const releases: (() => void)[] = [];
    for (let i = 0; i < 5; i++) void scheduler.acquire(0, undefined, Infinity).then((r) => r && releases.push(r));
    await advance(50);
    expect([releases.length, scheduler.inFlight, scheduler.pending]).toEqual([2, 2, 3]);
    releases[0]?.();
    releases[0]?.(); // a second release of the same slot is ignored
    await advance(50);
    expect([releases.length, scheduler.inFlight]).toEqual([3, 2]);
  });

  it('waits until a poll is due, answers undefined once it expired, and leaves no timer', async () => {
    const { clock, advance, timers } = manualClock();
    const scheduler = new PollScheduler({ maxConcurrent: 1, maxPerSecond: 1_000 }, clock);
    let granted = -1;
    void scheduler.acquire(500, undefined, Infinity).then((release) => {
      granted = clock.now();
      release?.();
    });
    await advance(499);
    expect(granted).toBe(-1);
    await advance(1);
    expect(granted).toBe(500);
    expect(timers.size).toBe(0);

    const holding = scheduler.acquire(0, undefined, Infinity);
    await advance(10);
    const hold = await holding;
    const expired = scheduler.acquire(0, undefined, clock.now() + 100);
    await advance(200);
    hold?.();
    await expect(expired).resolves.toBeUndefined();
    expect(timers.size).toBe(0);
  });

  it('an abort rejects with the reason and frees the queue', async () => {
    const { clock, advance, timers } = manualClock();
    const scheduler = new PollScheduler({ maxConcurrent: 1, maxPerSecond: 1 }, clock);
    const controller = new AbortController();
    const waiting = scheduler.acquire(10_000, controller.signal, Infinity);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await advance(0);
    expect([scheduler.pending, timers.size]).toEqual([0, 0]);
    await expect(scheduler.sleep(5, AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
  });
});

/** Settles with the clock time at which `promise` settled, and how. */
function settledAt<T>(promise: Promise<T>, clock: SchedulerClock) {
  const outcome: { at?: number; value?: T; error?: unknown } = {};
  promise.then(
    (value) => Object.assign(outcome, { at: clock.now(), value }),
    (error: unknown) => Object.assign(outcome, { at: clock.now(), error }),
  );
  return outcome;
}

describe('PollScheduler under saturation (defect 4)', () => {
  it('answers every expired poll and every due sleep at its own time, on one timer, whatever holds the slots', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.record({ delay: fc.integer({ min: 0, max: 500 }), timeout: fc.integer({ min: 1, max: 2_000 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 3 }),
        async (maxConcurrent, extraHogs, polls, sleeps) => {
          const { clock, advance, timers, stats } = manualClock();
          const scheduler = new PollScheduler({ maxConcurrent, maxPerSecond: 1_000 }, clock);
          // Hogs: every slot taken by a poll that is never released, and more queued behind them.
          const hogs = Array.from({ length: maxConcurrent + extraHogs }, () =>
            settledAt(scheduler.acquire(0, undefined, Number.POSITIVE_INFINITY), clock),
          );
          await advance(100);
          expect(scheduler.inFlight).toBe(maxConcurrent);
          const t0 = clock.now();
          const waits = polls.map(({ delay, timeout }) =>
            settledAt(scheduler.acquire(delay, undefined, t0 + timeout), clock),
          );
          const naps = sleeps.map((delay) => settledAt(scheduler.sleep(delay, undefined), clock));
          await advance(3_000);
          expect(waits).toEqual(polls.map(({ timeout }) => ({ at: t0 + timeout, value: undefined })));
          expect(naps).toEqual(sleeps.map((delay) => ({ at: t0 + delay, value: undefined })));
          expect(stats.mostTimers).toBe(1);
          // Releasing the hogs lets the queued ones start, and then nothing is left: no ticket, no timer.
          const released = new Set<unknown>();
          while (released.size < hogs.length) {
            for (const hog of hogs) if (hog.value && !released.has(hog)) released.add(hog) && hog.value();
            await advance(10);
          }
          expect([scheduler.pending, scheduler.inFlight]).toEqual([0, 0]);
          await advance(0);
          expect(timers.size).toBe(0);
        },
      ),
      { seed: 4, numRuns: 150 },
    );
  });

  it('pollDelivery rejects at its deadline to the ms, queued or reading, and no read outlives the wait', async () => {
    const sent = { id: 1, delivery_status: 'sent' } as MessageLog;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 100, max: 40_000 }),
        fc.array(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (maxConcurrent, hogCount, requestTimeout, timeouts, shortReadsStall) => {
          const { clock, advance } = manualClock();
          const scheduler = new PollScheduler({ maxConcurrent, maxPerSecond: 1_000 }, clock);
          const overrun: number[] = [];
          /** A read the server never answers: it ends when its timeout passes, as the transport ends it. */
          const stalled =
            (deadline: () => number) =>
            ({ signal, timeout }: { signal: AbortSignal | undefined; timeout: number }) => {
              if (clock.now() + timeout > deadline()) overrun.push(clock.now() + timeout - deadline());
              return new Promise<WithResponse<MessageLog>>((_resolve, reject) => {
                const timer = clock.setTimeout(() => reject(new APITimeoutError(timeout)), timeout);
                signal?.addEventListener('abort', () => {
                  clock.clearTimeout(timer);
                  reject(signal.reason);
                });
              });
            };
          const stop = new AbortController();
          const hogDeadline = clock.now() + 1e9;
          const hogs = Array.from({ length: hogCount }, () =>
            settledAt(
              pollDelivery(
                1,
                stalled(() => hogDeadline),
                { interval: 10, timeout: 1e9, until: 'delivered', signal: stop.signal },
                { requestTimeout, scheduler },
              ),
              clock,
            ),
          );
          await advance(10);
          const t0 = clock.now();
          const waits = timeouts.map((timeout) =>
            settledAt(
              pollDelivery(
                2,
                shortReadsStall ? stalled(() => t0 + timeout) : async () => ({ data: sent, response: RESPONSE }),
                { interval: 50, timeout, until: 'delivered' },
                { requestTimeout, scheduler },
              ),
              clock,
            ),
          );
          await advance(6_000);
          timeouts.forEach((timeout, i) => {
            expect(waits[i]?.error).toBeInstanceOf(DeliveryTimeoutError);
            expect(waits[i]?.at).toBe(t0 + timeout);
          });
          expect(overrun).toEqual([]);
          stop.abort(new Error('done'));
          await advance(0);
          expect(hogs.every((hog) => (hog.error as Error | undefined)?.message === 'done')).toBe(true);
          expect(scheduler.pending).toBe(0);
        },
      ),
      { seed: 13, numRuns: 80 },
    );
  });
});

describe('nextPollDelay', () => {
  it('starts at interval, grows 1.5x while nothing changes, caps at 8x, and only adds jitter', () => {
    expect([0, 1, 2, 3, 10].map((n) => nextPollDelay(1_000, n, () => 0))).toEqual([1_000, 1_500, 2_250, 3_375, 8_000]);
    expect(nextPollDelay(1_000, 0, () => 1)).toBe(1_200);
  });
});
