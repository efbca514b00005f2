/**
 * `.withResponse()` on every method's promise: the answer behind the result. Against a fake
 * service in process, on fake timers.
 */
import { MessagingClient, type ResponseInfo } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeService, fakeService, json, messageLog } from '../helpers/fake-service.js';
import { settle } from '../helpers/simulated-hour.cjs';

let server: FakeService;
let client: MessagingClient;
const RESET = 1_900_000_000;
const BASE_URL = 'https://api.example.test';

/** The value of `promise`, fake time advanced in 10 ms moves until it settles. */
const settled = async <T>(promise: Promise<T>): Promise<T> =>
  (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), 10)).value;

beforeAll(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
  server = fakeService((req, index) => {
    const headers = {
      'x-request-id': `req-${index}`,
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': String(59 - index),
      'x-ratelimit-reset': String(RESET),
    };
    const id = Number(req.url.split('?')[0]?.split('/').pop());
    if (req.method === 'POST') return json(201, { data: messageLog({ id: 5 }) }, headers);
    if (req.url.includes('/messages/'))
      return json(200, { data: messageLog({ id, delivery_status: 'delivered' }) }, headers);
    if (req.url.includes('/messages'))
      return json(200, { data: [messageLog({ id: 1 })], meta: { current_page: 1, last_page: 1 } }, headers);
    if (req.url.includes('/sender-numbers')) return json(200, { data: [{ id: 1 }] }, headers);
    return json(200, { data: { ok: true } }, headers);
  });
  client = new MessagingClient({ baseUrl: BASE_URL, apiKey: 'k', fetch: server.fetch });
});
afterAll(() => {
  vi.useRealTimers();
});

const text = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hi' } as const;

/** Every method, as a user calls it, with what its data should look like. */
const calls: Record<
  string,
  [() => { withResponse(): Promise<{ data: unknown; response: ResponseInfo }> }, unknown, number]
> = {
  'client.me()': [() => client.me(), { ok: true }, 200],
  'client.subscription()': [() => client.subscription(), { ok: true }, 200],
  'client.usage()': [() => client.usage(), { ok: true }, 200],
  'client.senderNumbers.list()': [() => client.senderNumbers.list(), [{ id: 1 }], 200],
  'client.contacts.lookup()': [
    () => client.contacts.lookup({ phone: '+15550000002', sender_phone: '+15550000001' }),
    { ok: true },
    200,
  ],
  'client.messages.send()': [() => client.messages.send(text), expect.objectContaining({ id: 5 }), 201],
  'client.messages.get()': [() => client.messages.get(8), expect.objectContaining({ id: 8 }), 200],
  'client.messages.list()': [
    () => client.messages.list(),
    expect.objectContaining({ data: [expect.objectContaining({ id: 1 })] }),
    200,
  ],
  'client.waitForDelivery()': [
    () => client.waitForDelivery(4, { interval: 5 }),
    expect.objectContaining({ id: 4 }),
    200,
  ],
  'client.request()': [() => client.request({ method: 'GET', path: '/me' }), { data: { ok: true } }, 200],
};

describe('.withResponse()', () => {
  it.each(Object.keys(calls))('%s resolves with { data, response }', async (name) => {
    const [call, data, status] = calls[name] as (typeof calls)[string];
    const before = server.requests.length;
    const { data: got, response } = await settled(call().withResponse());
    expect(got).toEqual(data);
    const index = server.requests.length - 1;
    expect(index).toBeGreaterThanOrEqual(before);
    expect(response).toMatchObject({
      status,
      requestId: `req-${index}`,
      attempts: 1,
      rateLimit: { limit: 60, remaining: 59 - index, resetAt: new Date(RESET * 1000) },
    });
    expect(response.headers['x-request-id']).toBe(`req-${index}`);
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('plain await gives the data alone, and the promise is a real Promise', async () => {
    const promise = client.me();
    expect(promise).toBeInstanceOf(Promise);
    await expect(settled(promise)).resolves.toEqual({ ok: true });
  });

  it('rejects as the call does', async () => {
    await expect(client.messages.get(0).withResponse()).rejects.toThrow(/Invalid message log id/);
  });

  it('counts the attempts of a retried call, and reads no rate limit when none was sent', async () => {
    const flaky = fakeService((_req, index) =>
      index === 0 ? json(503, { message: 'busy' }, { 'retry-after': '0' }) : json(200, { data: { ok: 1 } }),
    );
    const other = new MessagingClient({ baseUrl: BASE_URL, apiKey: 'k', fetch: flaky.fetch });
    const { response } = await settled(other.me().withResponse());
    expect(response).toMatchObject({ status: 200, attempts: 2, rateLimit: null, requestId: undefined });
    expect(flaky.requests).toHaveLength(2);
  });
});
