/**
 * Never sent means never sent, whatever the transport: an HTTP client that throws when called,
 * or fails before it connects, gives `APIConnectionError` with `neverSent: true`, and a send is
 * then retried like any never-sent send (stored once), never reported as "may have been sent".
 * Over the undici transport (a dispatcher that throws), over the fetch transport (a caller's
 * fetch that throws, any value), and over a real refused connection through each.
 */
import fc from 'fast-check';
import { APIConnectionError, MessagingClient, MessagingError, SendOutcomeUnknownError } from 'tenant-messaging';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, refusedUrl, startServer, type TestServer } from '../helpers/server.js';

const text = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'hi' } as const;

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => json(res, 201, { data: messageLog({ content: req.body.toString() }) }));
});
afterAll(() => server.close());

const sends = () => server.requests.filter((r) => r.method === 'POST').length;

/** A fetch that throws `thrown` on its first `failures` calls, then is the global fetch. */
function throwingFetch(thrown: unknown, failures: number): typeof fetch {
  let calls = 0;
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    if (calls++ < failures) throw thrown;
    return fetch(input, init);
  }) as typeof fetch;
}

/** A dispatcher whose `dispatch` throws on its first `failures` calls, then is a real Agent's. */
function throwingDispatcher(thrown: unknown, failures: number): { dispatcher: Dispatcher; close(): Promise<void> } {
  const agent = new Agent();
  let calls = 0;
  const dispatcher = Object.create(agent, {
    dispatch: {
      value: (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
        if (calls++ < failures) throw thrown;
        return agent.dispatch(options, handler);
      },
    },
  }) as Dispatcher;
  return { dispatcher, close: () => agent.close() };
}

describe('an HTTP client that throws before it takes the request', () => {
  it('over fetch: a send is retried and stored once; out of retries it is APIConnectionError with neverSent', async () => {
    const before = sends();
    const client = new MessagingClient({
      baseUrl: server.url,
      apiKey: 'key',
      fetch: throwingFetch(new TypeError('fetch is not ready'), 1),
    });
    await expect(client.messages.send(text)).resolves.toMatchObject({ id: expect.any(Number) });
    expect(sends() - before).toBe(1);

    const never = new MessagingClient({
      baseUrl: server.url,
      apiKey: 'key',
      maxRetries: 2,
      fetch: throwingFetch(new TypeError('fetch is not ready'), 3),
    });
    const error = await never.messages.send(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(SendOutcomeUnknownError);
    expect((error as APIConnectionError).neverSent).toBe(true);
    expect((error as APIConnectionError).message).toMatch(/fetch is not ready/);
    expect(sends() - before).toBe(1);
  });

  it('over undici: a dispatcher whose dispatch throws gives the same, and the send is stored once', async () => {
    const before = sends();
    const { dispatcher, close } = throwingDispatcher(new TypeError('dispatch is not a function'), 1);
    try {
      const client = new MessagingClient({ baseUrl: server.url, apiKey: 'key', dispatcher });
      await expect(client.messages.send(text)).resolves.toMatchObject({ id: expect.any(Number) });
      expect(sends() - before).toBe(1);
      const { dispatcher: broken, close: closeBroken } = throwingDispatcher(new TypeError('no dispatch here'), 9);
      const never = new MessagingClient({ baseUrl: server.url, apiKey: 'key', maxRetries: 1, dispatcher: broken });
      const error = await never.messages.send(text).catch((e: unknown) => e);
      await closeBroken();
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as APIConnectionError).neverSent).toBe(true);
      expect(sends() - before).toBe(1);
    } finally {
      await close();
    }
  });

  it('whatever value a fetch throws, a send ends as that MessagingError or a neverSent APIConnectionError, sent nowhere', async () => {
    const before = sends();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.string().map((m) => new Error(m)),
          fc.string().map((m) => new TypeError(m)),
          fc
            .constantFrom('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET')
            .map((code) => Object.assign(new Error(code), { code })),
        ),
        async (thrown) => {
          const client = new MessagingClient({
            baseUrl: server.url,
            apiKey: 'key',
            maxRetries: 0,
            fetch: throwingFetch(thrown, 1),
          });
          const error = await client.messages.send(text).catch((e: unknown) => e);
          if (thrown instanceof MessagingError) {
            expect(error).toBe(thrown);
            return;
          }
          expect(error).toBeInstanceOf(APIConnectionError);
          expect((error as APIConnectionError).neverSent).toBe(true);
        },
      ),
      { numRuns: 150, seed: 18 },
    );
    expect(sends() - before).toBe(0);
  });
});

describe('a refused connection', () => {
  it('is neverSent over the default transport, over the global fetch and over a fetch wrapped by the caller', async () => {
    const url = await refusedUrl();
    const fetches: [string, typeof fetch | undefined][] = [
      ['undici', undefined],
      ['fetch', fetch],
      ['wrapped fetch', ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init)) as typeof fetch],
    ];
    for (const [name, fetchOption] of fetches) {
      const client = new MessagingClient({
        baseUrl: url,
        apiKey: 'key',
        maxRetries: 0,
        ...(fetchOption ? { fetch: fetchOption } : {}),
      });
      const error = await client.messages.send(text).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(APIConnectionError);
      expect((error as APIConnectionError).neverSent, name).toBe(true);
      await client.close();
    }
  });
});
