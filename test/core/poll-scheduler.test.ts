import { describe, expect, it } from 'vitest';
import { nextPollDelay } from '../../src/core/poll.js';
import { PollScheduler, type SchedulerClock } from '../../src/core/poll-scheduler.js';

/** A manual clock: time moves only when the test says so, and timers fire in order. */
function manualClock() {
  let now = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let nextId = 1;
  const clock: SchedulerClock = {
    now: () => now,
    setTimeout: (run, ms) => {
      const id = nextId++;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimeout: (id) => timers.delete(id as number),
  };
  return {
    clock,
    timers,
    async advance(ms: number) {
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

describe('nextPollDelay', () => {
  it('starts at interval, grows 1.5x while nothing changes, caps at 8x, and only adds jitter', () => {
    expect([0, 1, 2, 3, 10].map((n) => nextPollDelay(1_000, n, () => 0))).toEqual([1_000, 1_500, 2_250, 3_375, 8_000]);
    expect(nextPollDelay(1_000, 0, () => 1)).toBe(1_200);
  });
});
