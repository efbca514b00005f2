/**
 * The fault-injection suite: the SDK against the in-process sandbox, with its fault switches, on
 * fake timers. Every failure must be a typed MessagingError, no send may be stored twice, and reads
 * recover from what is transient. The same faults over a real socket (connection resets, stalls
 * mid-body, a huge body): test/integration/fault-tolerance.test.ts.
 */

import {
  APIConnectionError,
  APITimeoutError,
  InternalServerError,
  MessagingClient,
  MessagingError,
  RateLimitError,
  ResponseValidationError,
  SendOutcomeUnknownError,
} from 'tenant-messaging';
import { createSandbox, SANDBOX_PHONES, type Sandbox } from 'tenant-messaging/sandbox';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeNow } from '../helpers/fake-clock.js';
import { settle } from '../helpers/simulated-hour.cjs';

let sandbox: Sandbox;
let client: MessagingClient;
let sendNo = 0;

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
  sandbox = createSandbox();
  const acme = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  client = new MessagingClient({ baseUrl: acme.baseUrl, apiKey: acme.keys.full, timeout: 500, fetch: sandbox.fetch });
});
afterEach(async () => {
  await client.close();
  vi.useRealTimers();
});

/** A text send with a unique body, so stored copies can be counted. */
function send(options = {}) {
  const content = `fault-suite #${++sendNo}`;
  const promise = client.messages.send(
    { sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content },
    options,
  );
  return { content, promise };
}
const stored = (content: string) => sandbox.messages('acme').filter((log) => log.content === content).length;
/** The value of `promise`, fake time advanced in 10 ms moves until it settles. */
const settled = async <T>(promise: Promise<T>) =>
  (await settle(promise, (ms) => vi.advanceTimersByTimeAsync(ms), 10)).value;
/** 'ok' or the error. */
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => error,
  );
/** 'ok' or the error, once fake time has settled it. */
const outcome = (promise: Promise<unknown>) => settled(caught(promise));

describe('connection resets', () => {
  it('before the request is processed: the read retries; the send is not stored and not repeated', async () => {
    sandbox.faults.add({ kind: 'drop', route: 'getMessage', times: 1 });
    const first = await settled(
      client.messages.send({ sender_phone: '+15550001001', to_phone: '+15557654321', type: 'text', content: 'x' }),
    );
    await expect(settled(client.messages.get(first.id))).resolves.toMatchObject({ id: first.id });

    sandbox.faults.add({ kind: 'drop', route: 'sendMessage', when: 'before', times: 1 });
    const { content, promise } = send();
    const error = await outcome(promise);
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect(stored(content)).toBe(0);
    expect(sandbox.counters.requests['POST /messages']).toBe(2);
  });

  it('after the send was processed: SendOutcomeUnknownError, stored exactly once', async () => {
    sandbox.faults.add({ kind: 'drop', route: 'sendMessage', when: 'after', times: 1 });
    const { content, promise } = send();
    const error = (await outcome(promise)) as SendOutcomeUnknownError;
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect(error.cause).toBeInstanceOf(APIConnectionError);
    expect(stored(content)).toBe(1);
  });
});

describe('5xx bursts', () => {
  it('a read rides out a burst shorter than maxRetries', async () => {
    sandbox.faults.add({ kind: 'status', status: 503, route: 'me', times: 2 });
    await expect(settled(client.me())).resolves.toHaveProperty('tenant');
    expect(sandbox.counters.requests['GET /me']).toBe(3);
  });

  it('a longer burst surfaces the typed error after maxRetries + 1 attempts', async () => {
    sandbox.faults.add({ kind: 'status', status: 500, route: 'usage', times: 5 });
    expect(await outcome(client.usage())).toBeInstanceOf(InternalServerError);
    expect(sandbox.counters.requests['GET /usage']).toBe(3);
  });

  it('a send is never repeated on 5xx, whether or not it was processed', async () => {
    sandbox.faults.add({ kind: 'status', status: 502, route: 'sendMessage', when: 'after', times: 1 });
    const { content, promise } = send();
    expect(await outcome(promise)).toBeInstanceOf(SendOutcomeUnknownError);
    expect(stored(content)).toBe(1);
    expect(sandbox.counters.requests['POST /messages']).toBe(1);
  });
});

describe('429 storms', () => {
  it('reads and sends wait out Retry-After, then succeed; nothing is stored twice', async () => {
    sandbox.setRateLimit(3);
    // Its own rate gate (rateLimit changes): the 429 it provokes must not hold the shared client.
    const limited = client.withOptions({ rateLimit: {} });
    const started = fakeNow();
    const reads = await settled(Promise.all([limited.me(), limited.me(), limited.me()].map(caught)));
    expect(reads.every((r) => r === 'ok')).toBe(true);
    const fourth = await outcome(limited.me({ maxRetries: 0 }));
    expect(fourth).toBeInstanceOf(RateLimitError);
    expect((fourth as RateLimitError).retryAfter).toBeGreaterThan(0);
    expect(fakeNow() - started).toBeLessThan(2_000);
  });
});

describe('stalls', () => {
  it('a server that stalls before the headers: APITimeoutError for a read after its retries', async () => {
    sandbox.faults.add({ kind: 'latency', latencyMs: 5_000, route: 'subscription', times: 3 });
    const started = fakeNow();
    const error = (await outcome(client.subscription({ timeout: 150 }))) as APITimeoutError;
    expect(error).toBeInstanceOf(APITimeoutError);
    // Three attempts of 150 ms and the backoff between them, in fake time.
    expect(sandbox.counters.requests['GET /subscription']).toBe(3);
    const took = fakeNow() - started;
    expect(took).toBeLessThan(4_000);
    // The message says what was measured: the attempts and the whole time, not one deadline.
    expect(error.code).toBe('network.timeout');
    expect([error.attempts, error.timeoutMs]).toEqual([3, 150]);
    expect(error.elapsedMs).toBeGreaterThan(3 * 150);
    expect(error.elapsedMs).toBeLessThanOrEqual(took);
    expect(error.message).toContain(
      `3 attempts over ${error.elapsedMs.toLocaleString('en-US')} ms (waits between them included), the last cut off after its 150 ms timeout.`,
    );
  });

  // A stall mid-body (the deadline covers the body too) needs a real fetch, whose body fails when
  // its signal aborts: test/integration/fault-tolerance.test.ts.
});

describe('broken bodies', () => {
  it.each(['truncated', 'malformed'] as const)('%s JSON on a 2xx is a ResponseValidationError', async (kind) => {
    sandbox.faults.add({ kind, route: 'me', times: 1 });
    const error = (await outcome(client.me())) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(typeof error.body).toBe('string');
  });

  it('an HTML error page from a proxy is an InternalServerError with a readable message', async () => {
    sandbox.faults.add({ kind: 'html', route: 'me', times: 3 });
    const error = (await outcome(client.me())) as InternalServerError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toContain('502 Bad Gateway');
  });

  it('a huge body is refused', async () => {
    // Its memory over a real socket: test/integration/fault-tolerance.test.ts.
    sandbox.faults.add({ kind: 'huge', hugeBytes: 40 * 1024 * 1024, route: 'me', times: 1 });
    const error = (await outcome(client.me({ maxRetries: 0 }))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toContain('larger than 32 MiB');
  });
});

describe('a send accepted with an unreadable answer', () => {
  it('is a ResponseValidationError that says the message was sent', async () => {
    sandbox.faults.add({ kind: 'malformed', route: 'sendMessage', times: 1 });
    const { content, promise } = send();
    const error = (await outcome(promise)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toContain('The service accepted the message (HTTP 201): it was sent, do not send it again.');
    expect(stored(content)).toBe(1);
  });
});

describe('every failure above is typed', () => {
  it('MessagingError is the base of everything thrown', () => {
    for (const Class of [
      APIConnectionError,
      APITimeoutError,
      SendOutcomeUnknownError,
      ResponseValidationError,
      RateLimitError,
    ]) {
      expect(Class.prototype).toBeInstanceOf(MessagingError);
    }
  });
});
