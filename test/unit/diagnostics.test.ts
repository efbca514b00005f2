/**
 * What the SDK publishes on node:diagnostics_channel: one trace per logical call, and the moments
 * in between (retries, rate-limited waits, unknown outcomes, polls). Shapes, order, and never the
 * key or a body. Against a fake service in process, on fake timers.
 */
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import {
  CHANNEL_NAMES,
  MessagingClient,
  NotFoundError,
  type RequestTrace,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FakeHandler, type FakeService, fakeService, json, messageLog } from '../helpers/fake-service.js';
import { settle } from '../helpers/simulated-hour.cjs';

const KEY = 'tm_live_SECRET_never_published';
const TEXT = {
  sender_phone: '+15550000001',
  to_phone: '+15550000002',
  type: 'text',
  content: 'Body text 1234',
} as const;

/** Everything published, in order, as [channel, event, a snapshot of the message]. */
type Event = [string, string, Record<string, unknown>];
let events: Event[];
let server: FakeService | undefined;
const BASE_URL = 'https://api.example.test';

/** A fake service answering with `handler`, and a client of it. */
function serve(handler: FakeHandler) {
  server = fakeService(handler);
  return { server, client: new MessagingClient({ baseUrl: BASE_URL, apiKey: KEY, fetch: server.fetch }) };
}

/** The value of `promise`, fake time advanced in 10 ms moves until it settles. */
const settled = async <T>(promise: Promise<T>): Promise<T> =>
  (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), 10)).value;

const snapshot = (message: unknown) => ({ ...(message as Record<string, unknown>) });
const handlers = Object.fromEntries(
  (['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const).map((event) => [
    event,
    (message: unknown) => events.push([CHANNEL_NAMES.request, event, snapshot(message)]),
  ]),
) as unknown as Parameters<ReturnType<typeof tracingChannel>['subscribe']>[0];
const plain = [CHANNEL_NAMES.retry, CHANNEL_NAMES.rateLimited, CHANNEL_NAMES.outcomeUnknown, CHANNEL_NAMES.poll].map(
  (name) => [name, (message: unknown) => events.push([name, 'publish', snapshot(message)])] as const,
);

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
  events = [];
  tracingChannel(CHANNEL_NAMES.request).subscribe(handlers);
  for (const [name, handler] of plain) subscribe(name, handler);
});
afterEach(async () => {
  tracingChannel(CHANNEL_NAMES.request).unsubscribe(handlers);
  for (const [name, handler] of plain) unsubscribe(name, handler);
  server = undefined;
  vi.useRealTimers();
});

/** No event may carry the key, or the body of a request or a response. */
function expectNothingSecret(): void {
  const text = JSON.stringify(events, (_key, value) =>
    value instanceof Error ? { name: value.name, message: value.message } : value,
  );
  expect(text).not.toContain(KEY);
  expect(text).not.toContain('Body text 1234');
}

describe('tenant-messaging:request', () => {
  it('one trace per logical call, whatever its retries, with the table name and the path template', async () => {
    const { client } = serve((_req, index) =>
      index === 0
        ? json(503, { message: 'busy' }, { 'retry-after': '0' })
        : json(200, { data: messageLog({ id: 7 }) }, { 'x-request-id': 'req-7' }),
    );
    await settled(client.messages.get(7));
    const trace = events.filter(([channel]) => channel === CHANNEL_NAMES.request);
    expect(trace.map(([, event]) => event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    const [, , start] = trace[0] as Event;
    expect(start).toMatchObject({
      endpoint: 'getMessage',
      method: 'GET',
      urlTemplate: '/messages/{messageLog}',
      serverAddress: new URL(BASE_URL).host,
    });
    const [, , end] = trace[3] as Event;
    expect(end).toMatchObject({ attempts: 2, status: 200, requestId: 'req-7' });
    expect(events.filter(([channel]) => channel === CHANNEL_NAMES.retry)).toEqual([
      [
        CHANNEL_NAMES.retry,
        'publish',
        expect.objectContaining({
          endpoint: 'getMessage',
          attempt: 1,
          delayMs: 0,
          reason: 'the service asked to wait',
        }),
      ],
    ]);
    expectNothingSecret();
  });

  it('a failed call carries the typed error the caller gets', async () => {
    const { client } = serve(() => json(404, { message: 'No query results for model [App\\Models\\MessageLog] 3' }));
    const error = await settled(client.messages.get(3).catch((e: unknown) => e));
    const failed = events.find(([, event]) => event === 'error') as Event;
    expect(failed[2]['error']).toBe(error);
    expect(failed[2]['error']).toBeInstanceOf(NotFoundError);
    expect(events.at(-1)?.[2]).toMatchObject({ status: 404, attempts: 1 });
    expectNothingSecret();
  });

  it('a send that may have gone out publishes outcome-unknown with the error the caller gets', async () => {
    const { client } = serve(() => json(500, { message: 'oops' }));
    const error = await settled(client.messages.send(TEXT).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    const unknown = events.filter(([channel]) => channel === CHANNEL_NAMES.outcomeUnknown);
    expect(unknown).toHaveLength(1);
    expect(unknown[0]?.[2]).toMatchObject({ endpoint: 'sendMessage', method: 'POST', urlTemplate: '/messages' });
    expect(unknown[0]?.[2]['error']).toBe(error);
    expectNothingSecret();
  });

  it('a 429 retried publishes a rate-limited wait with its source', async () => {
    const { client } = serve((_req, index) =>
      index === 0
        ? json(429, { message: 'Too Many Attempts.' }, { 'retry-after': '0', 'x-ratelimit-limit': '60' })
        : json(201, { data: messageLog() }),
    );
    await settled(client.messages.send(TEXT));
    const waits = events.filter(([channel]) => channel === CHANNEL_NAMES.rateLimited).map(([, , m]) => m);
    expect(waits).toEqual([{ endpoint: 'sendMessage', urlTemplate: '/messages', waitMs: 0, source: 'retry-after' }]);
    expectNothingSecret();
  });

  it('a subscriber may run the call in its own context (bindContext)', async () => {
    const { client } = serve(() => json(200, { data: { ok: true } }));
    const ran: string[] = [];
    const none = () => undefined;
    const binder = {
      end: none,
      asyncStart: none,
      asyncEnd: none,
      error: none,
      start(message: unknown) {
        (message as RequestTrace).bindContext = (run) => {
          ran.push('inside');
          return run();
        };
      },
    };
    tracingChannel(CHANNEL_NAMES.request).subscribe(binder);
    try {
      await expect(settled(client.me())).resolves.toEqual({ ok: true });
    } finally {
      tracingChannel(CHANNEL_NAMES.request).unsubscribe(binder);
    }
    expect(ran).toEqual(['inside']);
  });
});

describe('client.request() in traces', () => {
  it('the urlTemplate of a raw path has its numeric segments as {id}: never the filled path', async () => {
    const { server, client } = serve(() => json(200, { data: { id: 1 } }));
    await settled(client.request({ method: 'GET', path: '/sender-numbers/12345/verifications/67' }));
    const start = events.find(([, event]) => event === 'start') as Event;
    expect(start[2]).toMatchObject({ endpoint: 'request', urlTemplate: '/sender-numbers/{id}/verifications/{id}' });
    expect(server.requests[0]?.url).toBe('/api/v1/sender-numbers/12345/verifications/67');
  });
});

describe('tenant-messaging:poll', () => {
  it('one message per poll of a wait, with the status read or the error', async () => {
    const answers = [503, 'sent', 'delivered'] as const;
    const { client } = serve((_req, index) => {
      const answer = answers[index] ?? 'delivered';
      if (typeof answer === 'number') return json(answer, { message: 'busy' });
      return json(200, { data: messageLog({ id: 9, delivery_status: answer }) });
    });
    await settled(client.waitForDelivery(9, { interval: 5, timeout: 5_000 }));
    const polls = events.filter(([channel]) => channel === CHANNEL_NAMES.poll).map(([, , m]) => m);
    expect(polls.map((p) => [p['poll'], p['deliveryStatus'], (p['error'] as Error | undefined)?.name])).toEqual([
      [1, undefined, 'InternalServerError'],
      [2, 'sent', undefined],
      [3, 'delivered', undefined],
    ]);
    expect(polls.every((p) => p['messageLogId'] === 9)).toBe(true);
    expectNothingSecret();
  });
});
