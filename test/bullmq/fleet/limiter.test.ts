/**
 * The fleet-wide limit: the BullMQ limiter chosen for a tenant limit never lets more than the limit
 * into any sliding second, and still reaches most of it, over the whole range of limits; then two
 * workers sharing one queue, measured from the sandbox's side. It runs alone, after the suite
 * (vitest.config.ts): it measures the rate achieved. The limit held when the service counts sends
 * late is held-sends.test.ts, which asserts no rate and runs with the suite.
 */
import fc from 'fast-check';
import { ValidationError } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiterFor, peakPerSecond } from '../../../src/bullmq/fleet/limiter.js';
import { uniqueName } from '../../helpers/redis.js';
import { collectUpdates, type Fixture, fastWorker, runs, startFixture, text } from '../fixture.js';

describe('limiterFor', () => {
  it('no sliding second holds more than the limit, and the average is at least 0.9 of it (less one or two starts)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.double({ min: 1, max: 10_000, noNaN: true })),
        (rps) => {
          const settings = limiterFor(rps);
          expect(Number.isInteger(settings.max) && settings.max >= 1).toBe(true);
          expect(Number.isInteger(settings.duration) && settings.duration >= 1).toBe(true);
          expect(peakPerSecond(settings)).toBeLessThanOrEqual(rps);
          expect((settings.max * 1000) / settings.duration).toBeGreaterThanOrEqual(0.9 * Math.floor(rps) - 2);
        },
      ),
      { seed: 13, numRuns: 2_000 },
    );
  });

  it('is a fine window, never (N, 1000): e.g. 50 per second is two starts per 42 ms (one turnover per two starts)', () => {
    expect(limiterFor(50)).toEqual({ max: 2, duration: 42 });
    expect(limiterFor(20)).toEqual({ max: 1, duration: 53 });
    expect(peakPerSecond({ max: 50, duration: 1000 })).toBe(100);
  });
});

let f: Fixture;
beforeAll(async () => {
  if (runs) f = await startFixture();
});
afterAll(async () => {
  await f?.close();
});

describe.runIf(runs)('the limit across workers', () => {
  it('two workers with concurrency 4 stay within 20 per sliding second at the service, near 20 on average', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    const updates = queue.updates();
    await queue.sendMany(Array.from({ length: 50 }, (_, i) => text(i)));
    f.sandbox.requestLog.reset();
    const options = fastWorker(f, name, { concurrency: 4, rateLimit: { requestsPerSecond: 20 } });
    const workers = [new MessagingWorker(options), new MessagingWorker(options)];
    try {
      await collectUpdates(updates, (s) => s.length >= 50);
      const route = { route: 'POST /messages' };
      expect(f.sandbox.requestLog.maxInWindow(1000, route)).toBeLessThanOrEqual(20);
      // The rate on the service's clock, first send to last: the workers' start (slow on a busy
      // machine) is not the limiter's doing.
      const times = f.sandbox.requestLog.acceptedAt(route).sort((a, b) => a - b);
      const seconds = ((times.at(-1) as number) - (times[0] as number)) / 1000;
      expect((times.length - 1) / seconds).toBeGreaterThanOrEqual(0.8 * 20);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await queue.close();
    }
  });

  it('refuses a bad limit with a ValidationError', () => {
    for (const requestsPerSecond of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.5]) {
      expect(() => new MessagingWorker(fastWorker(f, uniqueName(), { rateLimit: { requestsPerSecond } }))).toThrow(
        ValidationError,
      );
    }
  });
});
