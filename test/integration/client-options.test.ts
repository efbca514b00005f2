import { inspect } from 'node:util';
import { MessagingClient, ValidationError, VERSION } from 'tenant-messaging';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { configError } from '../helpers/errors.js';
import { json, messageLog, startServer } from '../helpers/server.js';

const KEY = 'tm_live_SECRET_key_123';

describe('baseUrl', () => {
  it.each([
    ['https://acme.example.com', 'https://acme.example.com/api/v1'],
    ['https://acme.example.com/', 'https://acme.example.com/api/v1'],
    ['https://acme.example.com/api/v1', 'https://acme.example.com/api/v1'],
    ['https://acme.example.com/api/v1/', 'https://acme.example.com/api/v1'],
    ['https://host/t/acme', 'https://host/t/acme/api/v1'],
    ['https://host/t/acme/', 'https://host/t/acme/api/v1'],
    ['https://host/t/acme/api/v1', 'https://host/t/acme/api/v1'],
    ['  http://127.0.0.1:8080  ', 'http://127.0.0.1:8080/api/v1'],
  ])('%s -> %s', (given, expected) => {
    expect(new MessagingClient({ baseUrl: given, apiKey: KEY }).baseUrl).toBe(expected);
  });

  it('appends /api/v1 exactly once on the wire', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: messageLog() }));
    try {
      for (const base of [server.url, `${server.url}/`, `${server.url}/api/v1`, `${server.url}/t/acme/`]) {
        await new MessagingClient({ baseUrl: base, apiKey: KEY }).messages.get(42);
      }
      expect(server.requests.map((r) => r.url)).toEqual([
        '/api/v1/messages/42',
        '/api/v1/messages/42',
        '/api/v1/messages/42',
        '/t/acme/api/v1/messages/42',
      ]);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['acme.example.com', /not a URL/],
    ['ftp://acme.example.com', /scheme must be https: or http:/],
    ['https://acme.example.com/?x=1', /query string/],
    ['https://user:pw@acme.example.com', /credentials/],
  ])('rejects %s', (baseUrl, message) => {
    const error = configError(() => new MessagingClient({ baseUrl, apiKey: KEY }));
    expect(error.field).toBe('baseUrl');
    expect(error.message).toMatch(message);
  });
});

describe('environment and required options', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY when omitted', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: { tenant: 'acme' } }));
    try {
      vi.stubEnv('TENANT_MESSAGING_BASE_URL', server.url);
      vi.stubEnv('TENANT_MESSAGING_API_KEY', 'env-key');
      const client = new MessagingClient();
      expect(await client.me()).toEqual({ tenant: 'acme' });
      expect(server.requests[0]?.headers['x-api-key']).toBe('env-key');
    } finally {
      await server.close();
    }
  });

  it('names both missing options and how to provide them', () => {
    vi.stubEnv('TENANT_MESSAGING_BASE_URL', '');
    vi.stubEnv('TENANT_MESSAGING_API_KEY', '');
    const error = configError(() => new MessagingClient());
    expect(error.issues.map((i) => i.path)).toEqual(['baseUrl', 'apiKey']);
    expect(error.message).toContain('TENANT_MESSAGING_BASE_URL');
    expect(error.message).toContain('TENANT_MESSAGING_API_KEY');
  });

  it('rejects bad numbers, unknown options with a hint, header injection', () => {
    const error = configError(
      () =>
        new MessagingClient({
          baseUrl: 'https://a.example.com',
          apiKey: 'k\r\nX-Evil: 1',
          timeout: -1,
          maxRetries: 1.5,
          defaultHeaders: { 'x-trace': 'a\nb' },
          baseURL: 'x',
        } as never),
    );
    expect(error.issues.map((i) => i.path).sort()).toEqual(
      ['apiKey', 'baseURL', 'defaultHeaders.x-trace', 'maxRetries', 'timeout'].sort(),
    );
    expect(error.message).toContain('did you mean baseUrl?');
    expect(error.message).not.toContain('X-Evil');
  });
});

describe('headers', () => {
  it('sends X-Api-Key, Accept, User-Agent and default headers; per-call headers cannot replace the key', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: {} }));
    try {
      const client = new MessagingClient({ baseUrl: server.url, apiKey: KEY, defaultHeaders: { 'X-Trace': 't1' } });
      await client.subscription({ headers: { 'X-Api-Key': 'other', 'X-Call': 'c1' } });
      const headers = server.requests[0]?.headers ?? {};
      expect(headers['x-api-key']).toBe(KEY);
      expect(headers.accept).toBe('application/json');
      expect(headers['user-agent']).toBe(`tenant-messaging/${VERSION} node/${process.versions.node}`);
      expect(headers['x-trace']).toBe('t1');
      expect(headers['x-call']).toBe('c1');
    } finally {
      await server.close();
    }
  });

  it('VERSION matches package.json', () => {
    expect(VERSION).toBe(pkg.version);
  });
});

describe('the API key stays secret', () => {
  it('is absent from inspect and JSON of the client and of clones', () => {
    const client = new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: KEY });
    for (const c of [client, client.withOptions({ timeout: 5 })]) {
      expect(inspect(c, { depth: 10, showHidden: true })).not.toContain(KEY);
      expect(JSON.stringify(c)).not.toContain(KEY);
      expect(inspect(c.messages, { depth: 10, showHidden: true })).not.toContain(KEY);
    }
  });

  it('withOptions keeps the rest of the options', () => {
    const client = new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: KEY, maxRetries: 5 });
    const clone = client.withOptions({ timeout: 1234 });
    expect([clone.baseUrl, clone.timeout, clone.maxRetries]).toEqual(['https://a.example.com/api/v1', 1234, 5]);
  });
});

describe('withOptions', () => {
  it("uses the parent's connection pool, sends its own key, and close() on it leaves the pool open", async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: { ok: true } }));
    try {
      const parent = new MessagingClient({ baseUrl: server.url, apiKey: 'parent-key' });
      const child = parent.withOptions({ apiKey: 'child-key', timeout: 5_000 });
      await parent.me();
      await parent.me();
      const socketsOfParent = server.sockets;
      await child.me();
      await child.me();
      await child.close();
      await parent.me();
      expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual([
        'parent-key',
        'parent-key',
        'child-key',
        'child-key',
        'parent-key',
      ]);
      // The parent's keep-alive sockets served the child too: it opened no pool of its own.
      expect(server.sockets).toBe(socketsOfParent);
      await parent.close();
    } finally {
      await server.close();
    }
  });

  it('a refused option leaves no trace: the next new client has a pool of its own', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: { ok: true } }));
    try {
      const parent = new MessagingClient({ baseUrl: server.url, apiKey: KEY });
      for (let i = 0; i < 3; i++) await parent.me();
      const socketsOfParent = server.sockets;
      expect(() => parent.withOptions({ timeout: -1 })).toThrow(ValidationError);
      const fresh = new MessagingClient({ baseUrl: server.url, apiKey: KEY });
      await fresh.me();
      // Its own pool: one new socket (were the parent's pool leaked to it, an idle one would serve).
      expect(server.sockets).toBe(socketsOfParent + 1);
      await Promise.all([parent.close(), fresh.close()]);
    } finally {
      await server.close();
    }
  });
});

describe('withOptions and undefined', () => {
  it('an option given as undefined keeps the parent value instead of reading the environment', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: { ok: true } }));
    vi.stubEnv('TENANT_MESSAGING_API_KEY', 'env-key-with-every-scope');
    try {
      const parent = new MessagingClient({ baseUrl: server.url, apiKey: 'parent-key' });
      await parent.withOptions({ apiKey: undefined, timeout: undefined }).me();
      expect(server.requests[0]?.headers['x-api-key']).toBe('parent-key');
      await parent.close();
    } finally {
      vi.unstubAllEnvs();
      await server.close();
    }
  });
});

describe('transports', () => {
  it('uses the dispatcher it is given (proxies, mTLS), and leaves it open on close()', async () => {
    const { MockAgent } = await import('undici');
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://acme.example.com')
      .intercept({ path: '/api/v1/me', method: 'GET', headers: { 'x-api-key': KEY } })
      .reply(200, { data: { via: 'dispatcher' } }, { headers: { 'content-type': 'application/json' } });
    const client = new MessagingClient({ baseUrl: 'https://acme.example.com', apiKey: KEY, dispatcher: agent });
    expect(await client.me()).toEqual({ via: 'dispatcher' });
    await client.close();
    agent.assertNoPendingInterceptors();
    await agent.close();
  });

  it('rejects a dispatcher and a fetch together', () => {
    const error = configError(
      () => new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: KEY, fetch, dispatcher: {} as never }),
    );
    expect(error.field).toBe('dispatcher');
  });

  it('close() on the default transport is safe before and after use', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: {} }));
    try {
      const client = new MessagingClient({ baseUrl: server.url, apiKey: KEY });
      await client.close();
      await client.me();
      await client.close();
    } finally {
      await server.close();
    }
  });
});
