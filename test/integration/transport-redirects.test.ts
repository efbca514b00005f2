import fc from 'fast-check';
import { APIError, MessagingClient, SendOutcomeUnknownError, ValidationError } from 'tenant-messaging';
import { Agent, type Dispatcher, interceptors } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tenant-secret-key';
const text = { sender_phone: '+1', to_phone: '+2', type: 'text', content: 'hi' } as const;

/** Origin A, the base URL: answers every request with `status` and a Location on origin B. */
let origin: TestServer;
/** Origin B, another host: answers like the API would, and records whether it saw anything. */
let elsewhere: TestServer;
let status = 302;
let agent: Agent;

beforeAll(async () => {
  elsewhere = await startServer((req, res) =>
    json(res, req.method === 'POST' ? 201 : 200, { data: messageLog({ content: 'from origin B' }) }),
  );
  origin = await startServer((req, res) => {
    res.writeHead(status, { location: `${elsewhere.url}${req.url}` });
    res.end();
  });
  agent = new Agent();
});
afterAll(async () => {
  await agent.close();
  await origin.close();
  await elsewhere.close();
});

/** A caller's dispatcher that follows redirects, as undici documents composing one. */
function followingDispatcher(): Dispatcher {
  return agent.compose(interceptors.redirect({ maxRedirections: 3 }));
}

type Call = 'get' | 'send';
const call = (client: MessagingClient, which: Call) =>
  which === 'get' ? client.messages.get(1) : client.messages.send(text);

describe('the key never leaves the base URL origin, whatever the dispatcher (defect 6)', () => {
  it('with interceptors.redirect(), every redirect status is returned as an APIError and origin B sees nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(301, 302, 303, 307, 308),
        fc.constantFrom<Call>('get', 'send'),
        async (s, which) => {
          status = s;
          const before = { requests: elsewhere.requests.length, sockets: elsewhere.sockets };
          const client = new MessagingClient({ baseUrl: origin.url, apiKey: KEY, dispatcher: followingDispatcher() });
          const failure = await call(client, which).catch((e: unknown) => e);
          // A 3xx to a send may mean it was processed: an unknown outcome, with the 3xx as cause.
          if (which === 'send') expect(failure).toBeInstanceOf(SendOutcomeUnknownError);
          const error = which === 'send' ? (failure as Error).cause : failure;
          expect(error).toBeInstanceOf(APIError);
          expect((error as APIError).status).toBe(s);
          expect((error as APIError).message).toContain('does not follow redirects');
          expect((error as APIError).message).toContain(elsewhere.url);
          // Not a request, not even a connection: the key cannot have reached origin B.
          expect(elsewhere.requests.length).toBe(before.requests);
          expect(elsewhere.sockets).toBe(before.sockets);
          await client.close();
        },
      ),
      { numRuns: 10, seed: 6 },
    );
  });

  it('a dispatcher that forces redirects anyway is stopped before it writes a byte to origin B', async () => {
    status = 302;
    // An outer interceptor that overrides the SDK's maxRedirections: 0 on every dispatch.
    const forcing: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) =>
      dispatch({ ...opts, maxRedirections: 3 } as Dispatcher.DispatchOptions, handler);
    const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 3 }), forcing);
    const client = new MessagingClient({ baseUrl: origin.url, apiKey: KEY, dispatcher });
    for (const which of ['get', 'send'] as const) {
      const before = elsewhere.requests.length;
      const failure = await call(client, which).catch((e: unknown) => e);
      // The POST reached origin A, which answered with the redirect: it may have been processed.
      if (which === 'send') expect(failure).toBeInstanceOf(SendOutcomeUnknownError);
      const error = which === 'send' ? (failure as Error).cause : failure;
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe('dispatcher');
      expect((failure as Error).message).not.toContain(KEY);
      expect(elsewhere.requests.length).toBe(before);
    }
    await client.close();
  });

  it('a fetch that follows redirects despite redirect: manual is refused, not taken as the tenant answer', async () => {
    status = 302;
    const client = new MessagingClient({
      baseUrl: origin.url,
      apiKey: KEY,
      fetch: (input, init) => fetch(input, { ...init, redirect: 'follow' }),
    });
    const error = await client.messages.get(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('fetch');
  });
});
