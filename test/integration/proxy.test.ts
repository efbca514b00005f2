import fc from 'fast-check';
import { APIConnectionError, APIError, APITimeoutError, MessagingClient } from 'tenant-messaging';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ForwardProxy, startForwardProxy } from '../helpers/forward-proxy.js';
import { json, messageLog, refusedUrl, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const KEY = 'tm_live_PROXY_key_123';

let api: TestServer;
let proxy: ForwardProxy;
beforeEach(async () => {
  api = await startServer((req, res) => {
    if (req.url.endsWith('/me')) json(res, 200, { data: { tenant: 'acme' } });
    else json(res, 200, { data: messageLog({ id: Number(req.url.split('/').pop()) }) });
  });
  proxy = await startForwardProxy();
});
afterEach(async () => {
  await proxy.close();
  await api.close();
});

/** Waits until `done()`: the proxy sees a socket close a moment after the client closes it. */
const eventually = (done: () => boolean, what: string) =>
  until(done, () => `${what}: ${proxy.requests.length} requests proxied, ${proxy.open} sockets open`);

describe('proxy: a URL', () => {
  it('sends every call through the proxy on keep-alive sockets, credentials as Proxy-Authorization', async () => {
    const call = fc.oneof(fc.constant('me' as const), fc.integer({ min: 1, max: 1_000_000 }));
    const credentials = fc.record({
      user: fc.string({ minLength: 1, maxLength: 12 }),
      pass: fc.string({ minLength: 1, maxLength: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 6 }), credentials, async (calls, { user, pass }) => {
        const before = { proxied: proxy.requests.length, reached: api.requests.length, sockets: proxy.connections };
        const client = new MessagingClient({
          baseUrl: api.url,
          apiKey: KEY,
          proxy: `http://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${proxy.port}`,
        });
        for (const c of calls) {
          if (c === 'me') expect(await client.me()).toEqual({ tenant: 'acme' });
          else expect((await client.messages.get(c)).id).toBe(c);
        }
        await client.close();
        const proxied = proxy.requests.slice(before.proxied);
        expect(proxied).toHaveLength(calls.length);
        expect(api.requests.length - before.reached).toBe(calls.length);
        // Keep-alive: the sockets are reused. A call made the moment the previous one resolved may
        // find its socket not yet back in undici's pool (as without a proxy), hence up to two.
        expect(proxy.connections - before.sockets).toBeLessThanOrEqual(Math.min(calls.length, 2));
        const token = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
        for (const [i, seen] of proxied.entries()) {
          const c = calls[i];
          expect(seen.url).toBe(`${api.url}/api/v1/${c === 'me' ? 'me' : `messages/${c}`}`);
          expect(seen.headers['proxy-authorization']).toBe(token);
        }
        // The proxy strips its own header; undici must not have put it anywhere else.
        for (const reached of api.requests) expect(reached.headers['proxy-authorization']).toBeUndefined();
      }),
      { seed: 4242, numRuns: 15 },
    );
  });

  it('close() closes the connections to the proxy', async () => {
    const client = new MessagingClient({ baseUrl: api.url, apiKey: KEY, proxy: proxy.url });
    await Promise.all([client.me(), client.messages.get(1), client.messages.get(2)]);
    expect(proxy.open).toBeGreaterThan(0);
    await client.close();
    await eventually(() => proxy.open === 0, 'the sockets to the proxy stay open');
    expect(proxy.open).toBe(0);
  });

  it('calls that time out while queued for a connection never reach the proxy', async () => {
    await api.close();
    api = await startServer(() => undefined); // never answers
    const client = new MessagingClient({ baseUrl: api.url, apiKey: KEY, proxy: proxy.url, maxRetries: 0 });
    // 16 long calls take every connection (the client's own limit per origin,
    // src/core/transport/undici-transport.ts); 24 short ones queue behind them and time out
    // while the long ones still hold the connections. (With one timeout for all, a queued call
    // started a few ms after the first could be handed a freed connection with time left, and
    // rightly use it: the spread grows on a busy machine.)
    const long = Array.from({ length: 16 }, (_, i) =>
      client.messages.get(i + 1, { timeout: 1_500 }).catch((e: unknown) => e),
    );
    await eventually(() => proxy.requests.length === 16, 'the 16 long calls never all reached the proxy');
    const short = await Promise.all(
      Array.from({ length: 24 }, (_, i) => client.messages.get(i + 100, { timeout: 200 }).catch((e: unknown) => e)),
    );
    for (const error of short) {
      expect(error).toBeInstanceOf(APITimeoutError);
      expect((error as APITimeoutError).neverSent).toBe(true);
    }
    expect(proxy.requests.length).toBe(16);
    for (const error of await Promise.all(long)) expect(error).toBeInstanceOf(APITimeoutError);
    // The connections are free again: a call made now reaches the proxy, after any queued one that
    // had been left behind (the queue is first in, first out). It is the only one that does.
    const probe = client.messages.get(999, { timeout: 200 }).catch((e: unknown) => e);
    await eventually(() => proxy.requests.length > 16, 'a call made once the connections were free never arrived');
    expect(proxy.requests.slice(16).map((r) => r.url)).toEqual([`${api.url}/api/v1/messages/999`]);
    await probe;
    await client.close();
  });

  it('does not follow a redirect (the key would go wherever Location points)', async () => {
    const elsewhere = await startServer((_req, res) => json(res, 200, { data: {} }));
    await api.close();
    api = await startServer((_req, res) => json(res, 302, {}, { location: `${elsewhere.url}/api/v1/me` }));
    const client = new MessagingClient({ baseUrl: api.url, apiKey: KEY, proxy: proxy.url, maxRetries: 0 });
    await expect(client.me()).rejects.toBeInstanceOf(APIError);
    expect(proxy.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
    await client.close();
    await elsewhere.close();
  });

  it('withOptions({ proxy }) routes the new client through it and leaves the parent direct', async () => {
    const parent = new MessagingClient({ baseUrl: api.url, apiKey: KEY });
    const child = parent.withOptions({ proxy: proxy.url });
    await child.me();
    await parent.me();
    expect(proxy.requests).toHaveLength(1);
    expect(api.requests).toHaveLength(2);
    await Promise.all([child.close(), parent.close()]);
  });
});

describe("proxy: 'env'", () => {
  const NAMES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
  const saved = new Map(NAMES.map((name) => [name, process.env[name]]));
  beforeEach(() => {
    for (const name of NAMES) delete process.env[name];
  });
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  async function route(): Promise<{ proxied: number; reached: number }> {
    const client = new MessagingClient({ baseUrl: api.url, apiKey: KEY, proxy: 'env', maxRetries: 0 });
    expect(await client.me()).toEqual({ tenant: 'acme' });
    await client.close();
    return { proxied: proxy.requests.length, reached: api.requests.length };
  }

  it('HTTP_PROXY: through the proxy', async () => {
    process.env.HTTP_PROXY = proxy.url;
    expect(await route()).toEqual({ proxied: 1, reached: 1 });
    await eventually(() => proxy.open === 0, 'the sockets to the proxy stay open'); // close() closed the agent's sockets too
    expect(proxy.open).toBe(0);
  });

  it('NO_PROXY naming the host: direct', async () => {
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = 'example.com,127.0.0.1';
    expect(await route()).toEqual({ proxied: 0, reached: 1 });
  });

  it('the lower-case variable wins, as in undici', async () => {
    process.env.http_proxy = proxy.url;
    process.env.HTTP_PROXY = await refusedUrl();
    expect(await route()).toEqual({ proxied: 1, reached: 1 });
  });

  it('HTTPS_PROXY alone leaves an http base URL direct', async () => {
    process.env.HTTPS_PROXY = proxy.url;
    expect(await route()).toEqual({ proxied: 0, reached: 1 });
  });

  it('the variables are read when the client is constructed', async () => {
    process.env.HTTP_PROXY = proxy.url;
    const client = new MessagingClient({ baseUrl: api.url, apiKey: KEY, proxy: 'env' });
    delete process.env.HTTP_PROXY;
    await client.me();
    expect(proxy.requests).toHaveLength(1);
    await client.close();
  });
});

describe('proxy: an https base URL', () => {
  it('opens a CONNECT tunnel: the proxy sees host and port only, never the key', async () => {
    // No certificate the client trusts: the tunnel opens, TLS then fails, and the call fails typed.
    const target = `127.0.0.1:${new URL(api.url).port}`;
    const client = new MessagingClient({
      baseUrl: `https://${target}`,
      apiKey: KEY,
      proxy: `http://user:pw@127.0.0.1:${proxy.port}`,
      maxRetries: 0,
    });
    const error = await client.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(proxy.requests.map((r) => [r.method, r.url])).toEqual([['CONNECT', target]]);
    for (const seen of proxy.requests) expect(JSON.stringify(seen.headers)).not.toContain(KEY);
    expect(proxy.tunnelled.length).toBeGreaterThan(0); // the TLS ClientHello
    expect(proxy.tunnelled.includes(KEY)).toBe(false);
    expect(api.requests).toHaveLength(0);
    await client.close();
  });

  it('a CONNECT the proxy refuses: nothing was sent, so even a send is retried', async () => {
    const strict = await startForwardProxy('Basic other-credentials');
    const client = new MessagingClient({
      baseUrl: `https://127.0.0.1:${new URL(api.url).port}`,
      apiKey: KEY,
      proxy: strict.url,
      maxRetries: 1,
    });
    const params = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hi' } as const;
    const error = await client.messages.send(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APIConnectionError).neverSent).toBe(true);
    expect((error as Error).message).toContain(`Proxy response (407)`);
    expect(strict.requests.map((r) => r.method)).toEqual(['CONNECT', 'CONNECT']);
    await client.close();
    await strict.close();
  });
});
