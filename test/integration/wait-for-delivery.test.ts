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
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(() => server?.close());

type Step = string | number | 'drop';

/** Answers the n-th poll with steps[n]: a delivery_status, an HTTP error status, or a dropped connection. */
async function polling(steps: Step[], headers: Record<string, string> = {}) {
  server = await startServer((_req, res, index) => {
    const step = steps[Math.min(index, steps.length - 1)];
    if (step === 'drop') res.socket?.destroy();
    else if (typeof step === 'number') json(res, step, { message: `HTTP ${step}` }, headers);
    else json(res, 200, { data: messageLog({ delivery_status: step }) });
  });
  return new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
}

describe('waitForDelivery', () => {
  it('resolves with the log once delivered, calling onUpdate on each change only', async () => {
    const client = await polling(['sent', 'sent', 'delivered']);
    const updates: string[] = [];
    const log = await client.waitForDelivery(42, { interval: 20, onUpdate: (l) => updates.push(l.delivery_status) });
    expect(log.delivery_status).toBe('delivered');
    expect(updates).toEqual(['sent', 'delivered']);
    expect(server?.requests).toHaveLength(3);
    expect(server?.requests.every((r) => r.url === '/api/v1/messages/42' && r.method === 'GET')).toBe(true);
  });

  it("resolves on 'read' when waiting for delivery (read implies delivered)", async () => {
    const client = await polling(['sent', 'read']);
    expect((await client.waitForDelivery(42, { interval: 10 })).delivery_status).toBe('read');
  });

  it("until: 'read' keeps polling past delivered", async () => {
    const client = await polling(['sent', 'delivered', 'delivered', 'read']);
    const log = await client.waitForDelivery(42, { interval: 10, until: 'read' });
    expect(log.delivery_status).toBe('read');
    expect(server?.requests).toHaveLength(4);
  });

  it('waits `interval` between polls', async () => {
    const client = await polling(['sent', 'sent', 'delivered']);
    const started = performance.now();
    await client.waitForDelivery(42, { interval: 100 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('rejects with DeliveryTimeoutError carrying the last log when the timeout passes', async () => {
    const client = await polling(['sent']);
    const started = performance.now();
    const error = (await client
      .waitForDelivery(42, { interval: 30, timeout: 200 })
      .catch((e: unknown) => e)) as DeliveryTimeoutError<MessageLog>;
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.lastLog?.delivery_status).toBe('sent');
    expect(error.messageLogId).toBe(42);
    expect(error.message).toMatch(/did not reach 'delivered' within 200 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(190);
    // The timeout ends the wait: a bound a machine stalled for a few hundred ms keeps.
    expect(elapsed).toBeLessThan(200 + 2_000);
  });

  it("keeps polling through 'unknown', and the timeout error explains it", async () => {
    const client = await polling(['unknown']);
    const error = (await client.waitForDelivery(42, { interval: 20, timeout: 100 }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.message).toContain("'unknown' (the underlying chat message is missing");
    expect(server?.requests.length).toBeGreaterThan(1);
  });

  it('absorbs network failures, 429 and 5xx within the timeout', async () => {
    const client = await polling(['drop', 503, 429, 502, 'delivered'], { 'retry-after': '0' });
    const log = await client.waitForDelivery(42, { interval: 10, timeout: 5_000 });
    expect(log.delivery_status).toBe('delivered');
    expect(server?.requests.length).toBeGreaterThanOrEqual(5);
  });

  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ])('fails at once on %i', async (status, Class) => {
    const client = await polling([status]);
    await expect(client.waitForDelivery(42, { interval: 10 })).rejects.toBeInstanceOf(Class);
    expect(server?.requests).toHaveLength(1);
  });

  it('a transient failure that never clears ends in DeliveryTimeoutError with the failure as cause', async () => {
    const client = await polling([503]);
    const error = (await client.waitForDelivery(42, { interval: 20, timeout: 150 }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.cause).toBeDefined();
    expect(error.message).toContain('No read of the message log succeeded');
  });

  it('the signal cancels at once, during a wait and during a request', async () => {
    const client = await polling(['sent']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    const started = performance.now();
    await expect(client.waitForDelivery(42, { interval: 10_000, signal: controller.signal })).rejects.toThrow(
      'cancelled',
    );
    expect(performance.now() - started).toBeLessThan(500);
    await expect(client.waitForDelivery(42, { signal: AbortSignal.abort(new Error('early')) })).rejects.toThrow(
      'early',
    );
  });

  it('rejects bad ids and options before any request', async () => {
    const client = await polling(['delivered']);
    await expect(client.waitForDelivery(0)).rejects.toBeInstanceOf(ValidationError);
    await expect(client.waitForDelivery(1, { interval: 0 })).rejects.toThrow(/interval: must be a positive number/);
    await expect(client.waitForDelivery(1, { until: 'seen' as never })).rejects.toThrow(
      /until: must be 'delivered' or 'read'/,
    );
    expect(server?.requests).toHaveLength(0);
  });

  it('leaves no timer behind', async () => {
    const client = await polling(['sent', 'delivered']);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    try {
      const pending = client.waitForDelivery(42, { interval: 1_000 });
      await vi.waitFor(() => expect(server?.requests).toHaveLength(1));
      await vi.advanceTimersByTimeAsync(1_300);
      await expect(pending).resolves.toMatchObject({ delivery_status: 'delivered' });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('many waits share one scheduler', () => {
  it('keeps the poll rate under polling.maxPerSecond and resolves every wait', async () => {
    const seen: number[] = [];
    const started = performance.now();
    server = await startServer((req, res) => {
      seen.push(performance.now() - started);
      const id = Number(req.url.split('/').pop());
      json(res, 200, { data: messageLog({ id, delivery_status: seen.length > 60 ? 'delivered' : 'sent' }) });
    });
    const client = new MessagingClient({
      baseUrl: server.url,
      apiKey: 'k',
      polling: { maxPerSecond: 100, maxConcurrent: 4 },
    });
    const waits = Array.from({ length: 50 }, (_, i) =>
      client.waitForDelivery(i + 1, { interval: 50, timeout: 10_000 }),
    );
    const logs = await Promise.all(waits);
    expect(logs.every((l) => l.delivery_status === 'delivered')).toBe(true);
    // 100 per second = one start per 10 ms: n polls need at least (n - 1) * 10 ms.
    const span = (seen.at(-1) ?? 0) - (seen[0] ?? 0);
    expect(span).toBeGreaterThanOrEqual((seen.length - 1) * 10 - 5);
  });
});

describe('the timeout holds whatever other waits do (defect 4)', () => {
  it('a wait rejects at its timeout, queued behind slow reads of other waits or with its own read stalled', async () => {
    // The service never answers: every read hangs until its deadline ends it.
    server = await startServer(() => undefined);
    const url = server.url;
    const cases = { queued: 0, reading: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 150, max: 300 }),
        async (maxConcurrent, hogCount, timeout) => {
          const client = new MessagingClient({ baseUrl: url, apiKey: 'k', polling: { maxConcurrent } });
          const stop = new AbortController();
          // Hogs: waits with a long timeout whose reads each hold a slot for the default 30 s request timeout.
          const hogs = Array.from({ length: hogCount }, (_, i) =>
            client.waitForDelivery(1_000 + i, { interval: 10, timeout: 60_000, signal: stop.signal }),
          );
          await new Promise((resolve) => setTimeout(resolve, 20));
          cases[hogCount >= maxConcurrent ? 'queued' : 'reading']++;
          const own = new AbortController();
          const started = performance.now();
          const error = await client
            .waitForDelivery(7, { interval: 10, timeout, signal: own.signal })
            .catch((e: unknown) => e);
          const elapsed = performance.now() - started;
          expect(error).toBeInstanceOf(DeliveryTimeoutError);
          expect(elapsed).toBeGreaterThanOrEqual(timeout - 2);
          // At its timeout, not when a slot frees (the 30 s request deadline, the defect): the margin
          // is for timers a loaded machine fires late (432 ms for a 165 ms timeout was seen in CI).
          expect(elapsed).toBeLessThan(timeout + 2_000);
          expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
          stop.abort(new Error('done'));
          const ends = await Promise.allSettled(hogs);
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
    server = await startServer((_req, res) => {
      const status = script.shift() ?? 'delivered';
      json(res, 200, { data: messageLog({ delivery_status: status }) });
    });
    const url = server.url;
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
          const client = new MessagingClient({ baseUrl: url, apiKey: 'k', logger });
          const seen: string[] = [];
          const log = await client.waitForDelivery(42, {
            interval: 1,
            timeout: 5_000,
            onUpdate: (l) => {
              const throwing = throws[seen.length];
              seen.push(l.delivery_status);
              if (throwing !== null && throwing !== undefined) throw throwing;
            },
          });
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
