import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import {
  APIConnectionError,
  InternalServerError,
  MessagingClient,
  MessagingError,
  RateLimitError,
  SendOutcomeUnknownError,
  UnprocessableEntityError,
  ValidationError,
} from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import { json, messageLog, refusedUrl, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(() => server?.close());

async function serve(statuses: number[], headers: Record<string, string> = {}) {
  server = await startServer((_req, res, index) => {
    const code = statuses[index] ?? 200;
    if (code >= 400) json(res, code, { message: `HTTP ${code}` }, headers);
    else json(res, code, { data: messageLog() });
  });
  return new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
}

const text = { sender_phone: '+1', to_phone: '+2', type: 'text', content: 'hi' } as const;

describe('retries over real HTTP', () => {
  it('the budget is counted once: maxRetries N makes exactly N + 1 attempts, for reads and 429d sends', async () => {
    server = await startServer((_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': '0' }));
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6 }), fc.boolean(), async (maxRetries, isSend) => {
        const before = server?.requests.length ?? 0;
        const call = isSend ? client.messages.send(text, { maxRetries }) : client.messages.get(1, { maxRetries });
        await expect(call).rejects.toBeInstanceOf(RateLimitError);
        expect((server?.requests.length ?? 0) - before).toBe(maxRetries + 1);
      }),
      { seed: 5, numRuns: 20 },
    );
  });

  it('a read is retried on 503 and 429 until it succeeds', async () => {
    const client = await serve([503, 429], { 'retry-after': '0' });
    await expect(client.messages.get(42)).resolves.toMatchObject({ id: 42 });
    expect(server?.requests).toHaveLength(3);
  });

  it('a read gives up after maxRetries with the last error', async () => {
    const client = await serve([503, 503, 503, 503], { 'retry-after': '0' });
    await expect(client.messages.get(1, { maxRetries: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(server?.requests).toHaveLength(2);
  });

  it('a send is NOT retried on 500: SendOutcomeUnknownError, with the 500 as cause', async () => {
    const client = await serve([500]);
    const error = (await client.messages.send(text).catch((e: unknown) => e)) as SendOutcomeUnknownError;
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect(error).toBeInstanceOf(MessagingError);
    expect(error.cause).toBeInstanceOf(InternalServerError);
    expect(error.message).toMatch(/may have been sent[\s\S]*messages\.reconcile\(error\.params/);
    expect(server?.requests).toHaveLength(1);
  });

  it('a send rejected with a 4xx is a plain typed error: the service said no', async () => {
    const client = await serve([422]);
    await expect(client.messages.send(text)).rejects.toBeInstanceOf(UnprocessableEntityError);
  });

  it('a send IS retried on 429, honouring Retry-After', async () => {
    const client = await serve([429], { 'retry-after': '0.2' });
    const started = performance.now();
    await expect(client.messages.send(text)).resolves.toMatchObject({ id: 42 });
    expect(server?.requests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('a send from a one-shot stream is never retried, even on 429', async () => {
    const client = await serve([429], { 'retry-after': '0' });
    const media = { data: Readable.from([Buffer.from('abc')]), filename: 'a.png' };
    await expect(client.messages.send({ ...text, type: 'image', media })).rejects.toBeInstanceOf(RateLimitError);
    expect(server?.requests).toHaveLength(1);
  });

  it('a send to a closed port is retried (the connection was never made), then fails typed', async () => {
    const url = await refusedUrl();
    const retries: string[] = [];
    const logger = { debug() {}, info: (message: string) => retries.push(message), warn() {}, error() {} };
    const client = new MessagingClient({ baseUrl: url, apiKey: 'k', maxRetries: 2, logger, logLevel: 'info' });
    const error = await client.messages.send(text).catch((e: unknown) => e);
    // Certainly not sent, so a plain connection error, not "may have been sent".
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(SendOutcomeUnknownError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatch(/retrying POST \/messages/);
  });

  it('a request the HTTP client refuses is a ValidationError: never retried, never "may have been sent"', async () => {
    const { Dispatcher, errors } = await import('undici');
    let dispatched = 0;
    class Refusing extends Dispatcher {
      override dispatch(): boolean {
        dispatched++;
        throw new errors.InvalidArgumentError('invalid something header');
      }
    }
    const client = new MessagingClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', dispatcher: new Refusing() });
    const error = await client.messages.send(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/refused POST \/messages before sending it/);
    await expect(client.me()).rejects.toBeInstanceOf(ValidationError);
    expect(dispatched).toBe(2); // one each: no retry
  });

  it('a send with a header undici would refuse fails before any request, as a ValidationError', async () => {
    const client = await serve([]);
    for (const headers of [
      { 'x-note': 'caf\u00e9 \u2713' },
      { 'bad name': 'v' },
      { Expect: '100-continue' },
      { 'Transfer-Encoding': 'chunked' },
    ]) {
      await expect(client.messages.send(text, { headers })).rejects.toBeInstanceOf(ValidationError);
    }
    expect(() => new MessagingClient({ baseUrl: server?.url, apiKey: 'tm\u2019key' })).toThrow(/apiKey/);
    expect(server?.requests).toHaveLength(0);
  });

  // At once: the Retry-After (59 s, under the SDK's 60 s cap) outlasts this test's timeout, so an
  // abort honoured only when the wait ended fails it by the timeout; no bound nearer than that.
  it('abort during the backoff wait rejects at once', { timeout: 30_000 }, async () => {
    const client = await serve([503, 503, 503], { 'retry-after': '59' });
    const controller = new AbortController();
    // The retry is announced when its wait begins: the abort comes during that wait.
    const waiting = new Promise<void>((resolve) => {
      const onRetry = () => {
        unsubscribe('tenant-messaging:retry', onRetry);
        resolve();
      };
      subscribe('tenant-messaging:retry', onRetry);
    });
    const pending = client.messages.get(1, { signal: controller.signal });
    await waiting;
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(server?.requests).toHaveLength(1);
  });
});
