/**
 * The relay's shares of attempts, without a datastore: an endpoint's cap (EndpointSlots), the
 * wait of a delivery put back (bounceDelay), the process-wide pool of attempts with its parking
 * and its cap on parked attempts (AttemptPool). Exact, with fake timers.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AttemptPool, bounceDelay, EndpointSlots, FIRST_BOUNCE_MS } from '../../../../src/bullmq/webhooks/slots.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EndpointSlots', () => {
  it('gives each endpoint at most its cap, independently of the others, and forgets an idle one', () => {
    const slots = new EndpointSlots(2);
    expect([slots.take('a'), slots.take('a'), slots.take('a')]).toEqual([true, true, false]);
    expect(slots.take('b')).toBe(true);
    expect(slots.total).toBe(3);
    slots.release('a');
    expect(slots.take('a')).toBe(true);
    for (const key of ['a', 'a', 'b']) slots.release(key);
    expect(slots.total).toBe(0);
  });
});

describe('bounceDelay', () => {
  it('waits between half and all of a ceiling that doubles from FIRST_BOUNCE_MS up to the longest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 120_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (bounces, longest, random) => {
          const ceiling = Math.min(longest, FIRST_BOUNCE_MS * 2 ** (bounces - 1));
          const wait = bounceDelay(bounces, longest, () => random);
          expect(wait).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
          expect(wait).toBeLessThanOrEqual(Math.ceil(ceiling));
        },
      ),
    );
    expect(bounceDelay(1, 10_000, () => 1)).toBe(FIRST_BOUNCE_MS);
    expect(bounceDelay(4, 10_000, () => 1)).toBe(FIRST_BOUNCE_MS * 8);
    expect(bounceDelay(1_000, 10_000, () => 1)).toBe(10_000);
  });
});

describe('AttemptPool', () => {
  it('holds at most `size` places, gives them in the order asked, and once only per attempt', async () => {
    const pool = new AttemptPool(2, 8, 60_000);
    const first = await pool.acquire();
    const second = await pool.acquire();
    const order: number[] = [];
    const queued = (n: number) =>
      pool.acquire().then((release) => {
        order.push(n);
        return release;
      });
    const third = queued(3);
    const fourth = queued(4);
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    first(); // twice: still one place given back
    await third;
    expect(order).toEqual([3]);
    expect(pool.held).toEqual({ young: 2, parked: 0 });
    second();
    (await fourth)();
    (await third)();
    expect(order).toEqual([3, 4]);
    expect(pool.held).toEqual({ young: 0, parked: 0 });
  });

  it('gives a place back once its attempt has run for parkAfter, so that a stalled attempt holds it no longer', async () => {
    vi.useFakeTimers();
    const pool = new AttemptPool(1, 8, 1_000);
    const stalled = await pool.acquire();
    let next: (() => void) | undefined;
    void pool.acquire().then((release) => {
      next = release;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(next).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(next).toBeTypeOf('function');
    expect(pool.held).toEqual({ young: 1, parked: 1 });
    stalled(); // the stalled attempt ends later: its young place was given back already
    expect(pool.held).toEqual({ young: 1, parked: 0 });
    next?.();
    expect(pool.held).toEqual({ young: 0, parked: 0 });
  });

  it('parks no more than `parked` attempts: one more keeps its young place until a parked one ends', async () => {
    vi.useFakeTimers();
    const pool = new AttemptPool(1, 1, 1_000);
    const got: (() => void)[] = [];
    const ask = () => void pool.acquire().then((release) => got.push(release));
    ask();
    ask();
    ask();
    await vi.advanceTimersByTimeAsync(0);
    expect(got).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000); // the first parks: the second starts
    expect(got).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5_000); // the second cannot park: the third waits
    expect(got).toHaveLength(2);
    expect(pool.held).toEqual({ young: 1, parked: 1 });
    got[0]?.(); // the parked one ends: the second parks at once, and the third starts
    await vi.advanceTimersByTimeAsync(0);
    expect(got).toHaveLength(3);
    expect(pool.held).toEqual({ young: 1, parked: 1 });
    got[1]?.();
    got[2]?.();
    expect(pool.held).toEqual({ young: 0, parked: 0 });
  });

  it('refuses the deliveries waiting, and every later one, once closed', async () => {
    const pool = new AttemptPool(1, 8, 60_000);
    const held = await pool.acquire();
    const waiting = pool.acquire();
    pool.close(new Error('closing'));
    await expect(waiting).rejects.toThrow('closing');
    await expect(pool.acquire()).rejects.toThrow('closing');
    held();
    expect(pool.held).toEqual({ young: 0, parked: 0 });
  });
});
