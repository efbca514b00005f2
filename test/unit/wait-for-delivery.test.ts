import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import {
  AuthenticationError,
  DeliveryTimeoutError,
  type MessageLog,
  MessagingClient,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
} from 'tenant-messaging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeNow } from '../helpers/fake-clock.js';
import { dropped, type FakeService, fakeService, hang, json, messageLog } from '../helpers/fake-service.js';
import { settle } from '../helpers/simulated-hour.cjs';

let server: FakeService | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
});
afterEach(() => {
  server = undefined;
  vi.useRealTimers();
});

const BASE_URL = 'https://api.example.test';

/** Settles `promise`, fake time advanced in `step` ms moves. */
async function settled<T>(promise: Promise<T>, step = 10): Promise<T> {
  return (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), step)).value;
}

/** Settles `promise` to its value or its error, and the fake time it settled at. */
async function outcome(promise: Promise<unknown>, step = 10): Promise<{ value: unknown; at: number }> {
  let at = Number.NaN;
  const value = await settled(
    promise.then(
      (v) => {
        at = fakeNow();
        return v;
      },
      (e: unknown) => {
        at = fakeNow();
        return e;
      },
    ),
    step,
  );
  return { value, at };
}

type Step = string | number | 'drop';

/** Answers the n-th poll with steps[n]: a delivery_status, an HTTP error status, or a dropped connection. */
function polling(steps: Step[], headers: Record<string, string> = {}) {
  server = fakeService((_req, index) => {
    const step = steps[Math.min(index, steps.length - 1)];
    if (step === 'drop') return dropped();
    if (typeof step === 'number') return json(step, { message: `HTTP ${step}` }, headers);
    return json(200, { data: messageLog({ delivery_status: step }) });
  });
  return new MessagingClient({ baseUrl: BASE_URL, apiKey: 'k', fetch: server.fetch });
}

describe('waitForDelivery', () => {
  it('resolves with the log once delivered, calling onUpdate on each change only', async () => {
    const client = polling(['sent', 'sent', 'delivered']);
    const updates: string[] = [];
    const log = await settled(
      client.waitForDelivery(42, { interval: 20, onUpdate: (l) => updates.push(l.delivery_status) }),
    );
    expect(log.delivery_status).toBe('delivered');
    expect(updates).toEqual(['sent', 'delivered']);
    expect(server?.requests).toHaveLength(3);
    expect(server?.requests.every((r) => r.url === '/api/v1/messages/42' && r.method === 'GET')).toBe(true);
  });

  it("resolves on 'read' when waiting for delivery (read implies delivered)", async () => {
    const client = polling(['sent', 'read']);
    expect((await settled(client.waitForDelivery(42, { interval: 10 }))).delivery_status).toBe('read');
  });

  it("until: 'read' keeps polling past delivered", async () => {
    const client = polling(['sent', 'delivered', 'delivered', 'read']);
    const log = await settled(client.waitForDelivery(42, { interval: 10, until: 'read' }));
    expect(log.delivery_status).toBe('read');
    expect(server?.requests).toHaveLength(4);
  });

  it('waits `interval` between polls', async () => {
    const client = polling(['sent', 'sent', 'delivered']);
    await settled(client.waitForDelivery(42, { interval: 100 }));
    const times = server?.times() ?? [];
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(100);
  });

  it('rejects with DeliveryTimeoutError carrying the last log when the timeout passes', async () => {
    const client = polling(['sent']);
    const started = fakeNow();
    const { value, at } = await outcome(client.waitForDelivery(42, { interval: 30, timeout: 200 }));
    const error = value as DeliveryTimeoutError<MessageLog>;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.lastLog?.delivery_status).toBe('sent');
    expect(error.messageLogId).toBe(42);
    expect(error.message).toMatch(/did not reach 'delivered' within 200 ms/);
    // The timeout ends the wait: at its time, not at the poll after it.
    expect(at - started).toBe(200);
  });

  it("keeps polling through 'unknown', and the timeout error explains it", async () => {
    const client = polling(['unknown']);
    const error = (await outcome(client.waitForDelivery(42, { interval: 20, timeout: 100 }))).value as Error;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.message).toContain("'unknown' (the underlying chat message is missing");
    expect(server?.requests.length).toBeGreaterThan(1);
  });

  it('absorbs network failures, 429 and 5xx within the timeout', async () => {
    const client = polling(['drop', 503, 429, 502, 'delivered'], { 'retry-after': '0' });
    const log = await settled(client.waitForDelivery(42, { interval: 10, timeout: 5_000 }));
    expect(log.delivery_status).toBe('delivered');
    expect(server?.requests.length).toBeGreaterThanOrEqual(5);
  });

  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ])('fails at once on %i', async (status, Class) => {
    const client = polling([status]);
    await expect(settled(client.waitForDelivery(42, { interval: 10 }))).rejects.toBeInstanceOf(Class);
    // One read of the log; a 404 that names no model also asks /me whether the base URL is wrong.
    expect(server?.requests.filter((request) => request.url.startsWith('/api/v1/messages/'))).toHaveLength(1);
  });

  it('a transient failure that never clears ends in DeliveryTimeoutError with the failure as cause', async () => {
    const client = polling([503]);
    const error = (await outcome(client.waitForDelivery(42, { interval: 20, timeout: 150 }))).value as Error;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.cause).toBeDefined();
    expect(error.message).toContain('No read of the message log succeeded');
  });

  it('the signal cancels at once, during a wait and during a request', async () => {
    const client = polling(['sent']);
    const controller = new AbortController();
    const waiting = client.waitForDelivery(42, { interval: 10_000, signal: controller.signal });
    const during = expect(waiting).rejects.toThrow('cancelled');
    await vi.advanceTimersByTimeAsync(50);
    expect(server?.requests).toHaveLength(1);
    controller.abort(new Error('cancelled'));
    // At once: no fake time passes after the abort.
    await during;
    // During a request: one that never answers.
    const slow = fakeService(hang);
    const hanging = new MessagingClient({ baseUrl: BASE_URL, apiKey: 'k', fetch: slow.fetch });
    const inRequest = new AbortController();
    const reading = expect(hanging.waitForDelivery(42, { signal: inRequest.signal })).rejects.toThrow('in a request');
    await vi.advanceTimersByTimeAsync(0);
    expect(slow.requests).toHaveLength(1);
    inRequest.abort(new Error('in a request'));
    await reading;
    await expect(client.waitForDelivery(42, { signal: AbortSignal.abort(new Error('early')) })).rejects.toThrow(
      'early',
    );
  });

  it('rejects bad ids and options before any request', async () => {
    const client = polling(['delivered']);
    await expect(client.waitForDelivery(0)).rejects.toBeInstanceOf(ValidationError);
    await expect(client.waitForDelivery(1, { interval: 0 })).rejects.toThrow(/interval: must be a positive number/);
    await expect(client.waitForDelivery(1, { until: 'seen' as never })).rejects.toThrow(
      /until: must be 'delivered' or 'read'/,
    );
    expect(server?.requests).toHaveLength(0);
  });

  it('leaves no timer behind', async () => {
    const client = polling(['sent', 'delivered']);
    const pending = client.waitForDelivery(42, { interval: 1_000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(server?.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_300);
    await expect(pending).resolves.toMatchObject({ delivery_status: 'delivered' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('many waits share one scheduler', () => {
  it('keeps the poll rate under polling.maxPerSecond and resolves every wait', async () => {
    server = fakeService((req, index) => {
      const id = Number(req.url.split('/').pop());
      return json(200, { data: messageLog({ id, delivery_status: index >= 60 ? 'delivered' : 'sent' }) });
    });
    const client = new MessagingClient({
      baseUrl: BASE_URL,
      apiKey: 'k',
      fetch: server.fetch,
      polling: { maxPerSecond: 100, maxConcurrent: 4 },
    });
    const waits = Array.from({ length: 50 }, (_, i) =>
      client.waitForDelivery(i + 1, { interval: 50, timeout: 10_000 }),
    );
    const logs = await settled(Promise.all(waits));
    expect(logs.every((l) => l.delivery_status === 'delivered')).toBe(true);
    // 100 per second = one start per 10 ms: n polls need at least (n - 1) * 10 ms.
    const seen = server.times();
    expect(seen.length).toBeGreaterThan(60);
    const span = (seen.at(-1) ?? 0) - (seen[0] ?? 0);
    expect(span).toBeGreaterThanOrEqual((seen.length - 1) * 10);
  });
});

describe('the timeout holds whatever other waits do (defect 4)', () => {
  it('a wait rejects at its timeout, queued behind slow reads of other waits or with its own read stalled', async () => {
    // The service never answers: every read hangs until its deadline ends it.
    server = fakeService(hang);
    const { fetch } = server;
    const cases = { queued: 0, reading: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 150, max: 300 }),
        async (maxConcurrent, hogCount, timeout) => {
          const client = new MessagingClient({ baseUrl: BASE_URL, apiKey: 'k', fetch, polling: { maxConcurrent } });
          const stop = new AbortController();
          // Hogs: waits with a long timeout whose reads each hold a slot for the default 30 s request timeout.
          const hogs = Array.from({ length: hogCount }, (_, i) =>
            client.waitForDelivery(1_000 + i, { interval: 10, timeout: 60_000, signal: stop.signal }),
          );
          await vi.advanceTimersByTimeAsync(20);
          cases[hogCount >= maxConcurrent ? 'queued' : 'reading']++;
          const own = new AbortController();
          const started = fakeNow();
          const { value: error, at } = await outcome(
            client.waitForDelivery(7, { interval: 10, timeout, signal: own.signal }),
          );
          expect(error).toBeInstanceOf(DeliveryTimeoutError);
          // At its timeout, not when a slot frees (the 30 s request deadline, the defect).
          expect(at - started).toBe(timeout);
          expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
          stop.abort(new Error('done'));
          const ends = await settled(Promise.allSettled(hogs));
          expect(ends.every((end) => end.status === 'rejected' && (end.reason as Error).message === 'done')).toBe(true);
          expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
          await client.close();
        },
      ),
      { seed: 4, numRuns: 8 },
    );
    // Both paths really ran: queued for a slot at the deadline, and reading when it came.
    expect(cases.queued).toBeGreaterThan(0);
    expect(cases.reading).toBeGreaterThan(0);
  });
});

describe('a throwing onUpdate (defect 13c)', () => {
  it('never changes the outcome of the wait: logged once with warn, and the wait goes on', async () => {
    let script: string[] = [];
    server = fakeService(() => {
      const status = script.shift() ?? 'delivered';
      return json(200, { data: messageLog({ delivery_status: status }) });
    });
    const { fetch } = server;
    const thrown = fc.oneof(
      fc.string().map((message) => new Error(message)),
      fc.string(),
      fc.constant(undefined),
      // An object that cannot even become a string.
      fc.constant(Object.create(null) as object),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('sent', 'unknown', 'queued'), { maxLength: 3 }),
        fc.constantFrom('delivered', 'read'),
        fc.array(fc.option(thrown, { nil: null }), { minLength: 4, maxLength: 4 }),
        async (before, end, throws) => {
          script = [...before, end];
          const warnings: unknown[][] = [];
          const logger = { debug() {}, info() {}, error() {}, warn: (...args: unknown[]) => warnings.push(args) };
          const client = new MessagingClient({ baseUrl: BASE_URL, apiKey: 'k', fetch, logger });
          const seen: string[] = [];
          const log = await settled(
            client.waitForDelivery(42, {
              interval: 1,
              timeout: 5_000,
              onUpdate: (l) => {
                const throwing = throws[seen.length];
                seen.push(l.delivery_status);
                if (throwing !== null && throwing !== undefined) throw throwing;
              },
            }),
          );
          expect(log.delivery_status).toBe(end);
          const changes = [...before, end].filter((status, i, all) => status !== all[i - 1]);
          expect(seen).toEqual(changes);
          const threw = changes.some((_, i) => throws[i] !== null && throws[i] !== undefined);
          expect(warnings).toHaveLength(threw ? 1 : 0);
          if (threw) {
            expect(warnings[0]?.[0]).toBe('[tenant-messaging] onUpdate threw; the wait goes on');
            expect(warnings[0]?.[1]).toMatchObject({ messageLogId: 42, error: expect.any(String) });
          }
          await client.close();
        },
      ),
      { seed: 13, numRuns: 25 },
    );
  });
});
