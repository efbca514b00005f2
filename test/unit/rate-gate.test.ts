/**
 * The rate gate on fake timers, against a fake service (a fetch function that answers in process
 * and notes each request's fake arrival time): a 429's Retry-After holds every request of the
 * client, requestsPerSecond is a hard cap, X-RateLimit-* paces under a fixed window, a waiting
 * call cancels at once, and withOptions children share the gate of their pool.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { MessagingClient, RateLimitError, ValidationError } from 'tenant-messaging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { busiest } from '../helpers/arrivals.js';
import { fakeNow } from '../helpers/fake-clock.js';
import { type FakeService, fakeService, json, messageLog } from '../helpers/fake-service.js';
import { settle } from '../helpers/simulated-hour.cjs';

const KEY = 'tm_test_rate_gate_key';
const BASE_URL = 'https://api.example.test';
const clients: MessagingClient[] = [];

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  vi.useRealTimers();
});

const ok = (headers: Record<string, string> = {}) => json(200, { data: messageLog() }, headers);

function client(fetch: FakeService['fetch'], options: Record<string, unknown> = {}): MessagingClient {
  const made = new MessagingClient({ baseUrl: BASE_URL, apiKey: KEY, logLevel: 'off', fetch, ...options });
  clients.push(made);
  return made;
}

/** Settles `promise`, fake time advanced in `step` ms moves. */
async function settled<T>(promise: Promise<T>, step = 10): Promise<T> {
  return (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), step)).value;
}

/** Collects `tenant-messaging:rate-limited` messages while `run` runs; `first` resolves on the first. */
async function rateLimitedDuring(run: (first: Promise<void>) => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  let reported!: () => void;
  const first = new Promise<void>((resolve) => {
    reported = resolve;
  });
  const listener = (message: unknown) => {
    seen.push(message as Record<string, unknown>);
    reported();
  };
  subscribe('tenant-messaging:rate-limited', listener);
  try {
    await run(first);
  } finally {
    unsubscribe('tenant-messaging:rate-limited', listener);
  }
  return seen;
}

describe('rate gate: a 429 pauses every request of the client', () => {
  it('no request arrives before the Retry-After time, and the 429 is retried once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 8 }),
        async (waitMs, concurrency) => {
          const service = fakeService((_request, index) =>
            index > 0 ? ok() : json(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(waitMs / 1000) }),
          );
          const c = client(service.fetch);
          const events = await rateLimitedDuring(async (first) => {
            const firstCall = c.messages.get(42);
            // The client reports the first wait once the 429 reached it: it now holds everyone.
            await first;
            const others = Array.from({ length: concurrency }, () => c.messages.get(42));
            await settled(Promise.all([firstCall, ...others]));
          });
          const [refusedAt, ...after] = service.times();
          expect(after).toHaveLength(concurrency + 1);
          for (const at of after) expect(at).toBeGreaterThanOrEqual((refusedAt as number) + waitMs);
          // One message per waiting request (the retried one included), never two for the same wait.
          expect(events).toHaveLength(concurrency + 1);
          for (const event of events) expect(event).toMatchObject({ endpoint: 'getMessage', source: 'retry-after' });
          await Promise.all(clients.splice(0).map((made) => made.close()));
        },
      ),
      { seed: 3, numRuns: 30 },
    );
  });
});

describe('rate gate: requestsPerSecond is a hard cap', () => {
  it('200 concurrent calls never exceed the cap in any sliding second', async () => {
    const service = fakeService(() => ok());
    const c = client(service.fetch, { rateLimit: { requestsPerSecond: 100 } });
    const started = fakeNow();
    const events = await rateLimitedDuring(() =>
      settled(Promise.all(Array.from({ length: 200 }, () => c.messages.get(42)))),
    );
    expect(service.requests).toHaveLength(200);
    expect(busiest(service.times(), 1_000)).toBeLessThanOrEqual(100);
    expect((service.times().at(-1) as number) - started).toBeGreaterThanOrEqual(1_990);
    // Each call the gate held is reported: all but the first.
    expect(events).toHaveLength(199);
    expect(events[0]).toMatchObject({ source: 'fixed-rate', urlTemplate: '/messages/{messageLog}' });
  });
});

describe('rate gate: pacing from X-RateLimit-Limit and X-RateLimit-Remaining', () => {
  it('against 20 per second (Laravel fixed window), 8 busy callers for 3 s get few or no 429s', async () => {
    const LIMIT = 20;
    let opened = Number.NEGATIVE_INFINITY;
    let hits = 0;
    let refusals = 0;
    const service = fakeService(({ at: now }) => {
      if (now - opened >= 1_000) {
        opened = now;
        hits = 0;
      }
      if (hits >= LIMIT) {
        refusals++;
        const headers = { 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': '0', 'retry-after': '1' };
        return json(429, { message: 'Too Many Attempts.' }, headers);
      }
      hits++;
      return ok({ 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': String(LIMIT - hits) });
    });
    const c = client(service.fetch, { maxRetries: 0 });
    const until = fakeNow() + 3_000;
    let served = 0;
    const worker = async () => {
      // The bound on requests only ends a gate that never waits (a loop that would hold the fake clock).
      while (fakeNow() < until && service.requests.length < 1_000) {
        // A 429 (maxRetries: 0) is counted by the service and the loop goes on.
        const passed = await c.messages.get(42).then(
          () => true,
          (error: unknown) => {
            if (error instanceof RateLimitError) return false;
            throw error;
          },
        );
        if (passed) served++;
      }
    };
    await settled(Promise.all(Array.from({ length: 8 }, worker)));
    expect(service.requests.length).toBeLessThan(1_000);
    expect(refusals).toBeLessThanOrEqual(1);
    expect(served).toBeGreaterThanOrEqual(2 * LIMIT);
  });
});

describe('rate gate: cancelling a waiting call', () => {
  it('rejects at once with the reason, sends nothing, and leaves no timer or listener', async () => {
    const service = fakeService(() => ok());
    const c = client(service.fetch, { rateLimit: { requestsPerSecond: 0.5 } });
    await c.messages.get(42);
    const timersBefore = vi.getTimerCount();
    const controller = new AbortController();
    const waiting = c.messages.get(42, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(20);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    // At once: with no fake time advanced after the abort.
    await expect(waiting).rejects.toBe(reason);
    expect(service.requests).toHaveLength(1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBeLessThanOrEqual(timersBefore);
  });

  it('a call that waited and passed keeps no listener on its signal', async () => {
    const service = fakeService(() => ok());
    const c = client(service.fetch, { rateLimit: { requestsPerSecond: 20 } });
    const signal = new AbortController().signal;
    await settled(Promise.all([c.messages.get(42), c.messages.get(42, { signal })]));
    expect(service.requests).toHaveLength(2);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('rate gate: shared by withOptions children', () => {
  it('a child that shares the pool shares the cap; another tenant does not', async () => {
    const service = fakeService(() => ok());
    const parent = client(service.fetch, { rateLimit: { requestsPerSecond: 10 } });
    const child = parent.withOptions({ timeout: 5_000 });
    const started = fakeNow();
    await settled(Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? child : parent).messages.get(42))));
    // Six starts 100 ms apart through one gate; two gates would take half the time.
    expect((service.times().at(-1) as number) - started).toBeGreaterThanOrEqual(490);
    expect(busiest(service.times(), 1_000)).toBeLessThanOrEqual(10);

    const other = parent.withOptions({ apiKey: 'tm_test_other_tenant' });
    const before = fakeNow();
    await settled(Promise.all([parent.messages.get(42), other.messages.get(42)]));
    // The other tenant's gate is its own: its request went at once, whatever the parent's waited.
    const others = service.requests.filter(({ headers }) => headers.get('x-api-key') === 'tm_test_other_tenant');
    expect(others.map(({ at }) => at - before)).toEqual([0]);
  });
});

describe('rate gate: the rateLimit option', () => {
  it.each([
    [{ requestsPerSecond: 0 }, 'rateLimit.requestsPerSecond'],
    [{ requestsPerSecond: Number.POSITIVE_INFINITY }, 'rateLimit.requestsPerSecond'],
    [{ requestsPerSecond: '10' }, 'rateLimit.requestsPerSecond'],
    [{ adaptive: 'yes' }, 'rateLimit.adaptive'],
    [{ requestPerSecond: 10 }, 'requestPerSecond'],
  ])('refuses %j naming %s', (rateLimit, path) => {
    let error: unknown;
    try {
      new MessagingClient({ baseUrl: 'http://127.0.0.1:1', apiKey: KEY, rateLimit: rateLimit as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toContain(path);
    expect(String((error as Error).message)).not.toContain(KEY);
  });
});
