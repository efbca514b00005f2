import {
  APIConnectionError,
  InternalServerError,
  MessagingError,
  RateLimitError,
  ResponseValidationError,
} from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PNG, TRANSPORTS } from './transports.js';

const send = (h: Harness, maxRetries = 0) =>
  h.client('acme', 'full', maxRetries).messages.send({
    sender_phone: '+15550001001',
    to_phone: SANDBOX_PHONES.reads,
    type: 'text',
    content: 'Hi',
  });

/**
 * What a failed send really was: the SDK wraps a failure after which the message may have been
 * sent in an error saying so (SendOutcomeUnknownError), with the transport's error as `cause`.
 */
const failedSend = (h: Harness) =>
  send(h).then(
    () => expect.unreachable('expected the send to fail'),
    (error: unknown) => {
      const cause = (error as { cause?: unknown }).cause;
      return cause instanceof MessagingError ? cause : error;
    },
  );

describe.each(Object.keys(TRANSPORTS) as (keyof typeof TRANSPORTS)[])('faults over %s', (name) => {
  let h: Harness;
  beforeAll(async () => {
    h = await TRANSPORTS[name]({ seed: 7 });
  });
  afterEach(() => h.sandbox.reset());
  afterAll(() => h.close());

  it('are off by default', async () => {
    await expect(send(h)).resolves.toMatchObject({ status: 'sent' });
    expect(h.sandbox.faults.injected).toBe(0);
  });

  it('status: 5xx for the next N matching requests only, on the targeted route only', async () => {
    const fault = h.sandbox.faults.add({ kind: 'status', status: 500, route: 'POST /messages', times: 2 });
    const client = h.client();
    await expect(client.me()).resolves.toBeTruthy();
    expect(await failedSend(h)).toBeInstanceOf(InternalServerError);
    expect(await failedSend(h)).toMatchObject({ status: 500, serverMessage: 'Server Error' });
    await expect(send(h)).resolves.toBeTruthy();
    expect(fault.injected).toBe(2);
    expect(h.sandbox.faults.injected).toBe(2);
    expect(h.sandbox.messages('acme')).toHaveLength(1);
  });

  it('status is retried by the SDK for a GET and ends in success', async () => {
    h.sandbox.faults.add({ kind: 'status', status: 503, route: 'me', times: 1 });
    await expect(h.client('acme', 'full', 1).me()).resolves.toMatchObject({ environment: 'sandbox' });
    expect(h.sandbox.counters.requests['GET /me']).toBe(2);
  });

  it('drop: the connection fails; when: after, the send was stored all the same', async () => {
    h.sandbox.faults.add({ kind: 'drop', route: 'sendMessage', when: 'after' });
    expect(await failedSend(h)).toBeInstanceOf(APIConnectionError);
    expect(h.sandbox.messages('acme')).toHaveLength(1);
    h.sandbox.faults.add({ kind: 'drop', method: 'GET' });
    await expect(h.client().me()).rejects.toBeInstanceOf(APIConnectionError);
    expect(h.sandbox.faults.injectedByKind).toEqual({ drop: 2 });
  });

  it('lost-answer: the message is stored as a successful send would be, and the client gets a connection error', async () => {
    const fault = h.sandbox.faults.add({ kind: 'lost-answer', route: 'POST /messages', times: 2 });
    expect(await failedSend(h)).toBeInstanceOf(APIConnectionError);
    const media = h.client('acme', 'full', 3).messages.send({
      sender_number_id: 2,
      to_phone: SANDBOX_PHONES.reads,
      type: 'image',
      content: 'lost',
      media: { data: PNG, filename: 'pixel.png' },
    });
    const error = await media.then(
      () => expect.unreachable('expected the send to fail'),
      (e: unknown) => e,
    );
    expect((error as { cause?: unknown }).cause ?? error).toBeInstanceOf(APIConnectionError);
    expect(fault.injected).toBe(2);
    const stored = h.sandbox.messages('acme');
    expect(stored.map((log) => [log.message_type, log.content, log.status])).toEqual([
      ['text', 'Hi', 'sent'],
      ['image', 'lost', 'sent'],
    ]);
    expect(h.sandbox.uploads).toHaveLength(1);
    // Not retried (a send is not idempotent): one request each, both stored.
    expect(h.sandbox.counters).toMatchObject({ requests: { 'POST /messages': 2 }, sendsStored: 2 });
    await expect(send(h)).resolves.toMatchObject({ id: (stored[1]?.id ?? 0) + 1 });
  });

  it('truncated and malformed bodies become ResponseValidationError', async () => {
    h.sandbox.faults.add({ kind: 'truncated', route: 'GET /me' });
    const truncated = await h
      .client()
      .me()
      .catch((e: unknown) => e);
    expect(truncated).toBeInstanceOf(ResponseValidationError);
    expect(String((truncated as ResponseValidationError).body)).toMatch(/^\{"data":/);
    h.sandbox.faults.add({ kind: 'malformed', route: 'GET /me' });
    await expect(h.client().me()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('html: a 502 page from a proxy', async () => {
    h.sandbox.faults.add({ kind: 'html', route: 'GET /subscription' });
    const error = await h
      .client()
      .subscription()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).message).toMatch(/HTML page titled "502 Bad Gateway"/);
  });

  it('latency: the answer comes late, and a client timeout fires', async () => {
    h.sandbox.faults.add({ kind: 'latency', latencyMs: 150, route: 'GET /me', times: 2 });
    const started = performance.now();
    await h.client().me();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    await expect(h.client().me({ timeout: 50 })).rejects.toMatchObject({ name: 'APITimeoutError' });
  });

  it('ratio: replays identically for the same seed', async () => {
    const run = async () => {
      h.sandbox.reset();
      h.sandbox.faults.add({ kind: 'status', route: 'GET /subscription', ratio: 0.5 });
      const outcomes: boolean[] = [];
      for (let i = 0; i < 12; i++)
        outcomes.push(
          await h
            .client()
            .subscription()
            .then(
              () => true,
              () => false,
            ),
        );
      return outcomes;
    };
    const first = await run();
    expect(first).toContain(true);
    expect(first).toContain(false);
    expect(await run()).toEqual(first);
  });

  it('rate limit: 429 with Retry-After and X-RateLimit headers, off by default', async () => {
    const url = `${h.sandbox.tenants['acme']?.baseUrl}/api/v1/me`;
    const get = () =>
      h.sandbox.handle(new Request(url, { headers: { accept: 'application/json', 'x-api-key': 'tm_test_acme_full' } }));
    expect((await get()).headers.get('x-ratelimit-limit')).toBeNull();
    h.sandbox.setRateLimit(2);
    const first = await get();
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual(['2', '1']);
    expect((await get()).headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const error = await failedSend(h);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeGreaterThan(0);
    h.sandbox.setRateLimit(null);
    expect((await get()).status).toBe(200);
  });
});

describe('fault switches', () => {
  it('refuse unknown routes and bad ratios', async () => {
    const { sandbox } = await TRANSPORTS.fetch();
    expect(() => sandbox.faults.add({ kind: 'drop', route: 'DELETE /messages' as 'POST /messages' })).toThrow(
      /Unknown fault route/,
    );
    expect(() => sandbox.faults.add({ kind: 'drop', ratio: 2 })).toThrow(RangeError);
    sandbox.faults.add({ kind: 'drop', tenant: 'globex' });
    expect(sandbox.faults.list()).toHaveLength(1);
    sandbox.faults.clear();
    expect(sandbox.faults.list()).toHaveLength(0);
  });
});
