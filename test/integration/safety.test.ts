import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { type Logger, MessagingClient, ValidationError } from 'tenant-messaging';
import { describe, expect, it, vi } from 'vitest';
import { json, startServer } from '../helpers/server.js';

const KEY = 'tm_live_NEVER_LOG_ME_42';

describe('plain http', () => {
  it.each(['http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:8080'])(
    'is allowed to loopback: %s',
    (baseUrl) => {
      expect(() => new MessagingClient({ baseUrl, apiKey: KEY })).not.toThrow();
    },
  );

  it('is refused for names under .localhost: they resolve through DNS like any other name', () => {
    // Any label, any depth: the connection would ask the resolver, which may answer any address.
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ':8080'), (labels, port) => {
        const baseUrl = `http://${labels.join('.')}.localhost${port}`;
        expect(() => new MessagingClient({ baseUrl, apiKey: KEY })).toThrow(/unencrypted/);
        expect(() => new MessagingClient({ baseUrl, apiKey: KEY, allowInsecureHttp: true })).not.toThrow();
      }),
      { seed: 12, numRuns: 100 },
    );
  });

  it('is refused for other hosts, saying why and how to opt in', () => {
    const make = () => new MessagingClient({ baseUrl: 'http://acme.example.com', apiKey: KEY });
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(/unencrypted[\s\S]*allowInsecureHttp: true/);
    expect(
      () => new MessagingClient({ baseUrl: 'http://acme.example.com', apiKey: KEY, allowInsecureHttp: true }),
    ).not.toThrow();
  });
});

describe('browsers', () => {
  it('refuses to construct where window and document exist, unless dangerouslyAllowBrowser', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    try {
      const make = (allow?: boolean) =>
        new MessagingClient({ baseUrl: 'https://a.example.com', apiKey: KEY, dangerouslyAllowBrowser: allow });
      expect(() => make()).toThrow(/refuses to run in a browser[\s\S]*dangerouslyAllowBrowser: true/);
      expect(() => make(true)).not.toThrow();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('logging', () => {
  function recorder() {
    const lines: { level: string; message: string; fields: unknown }[] = [];
    const at = (level: string) => (message: string, fields?: unknown) => lines.push({ level, message, fields });
    const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    return { lines, logger };
  }

  it('debug logs each request with method, path, status, attempt, duration and request id; never the key or body', async () => {
    const server = await startServer((_req, res, i) =>
      i === 0
        ? json(res, 503, { message: 'down' }, { 'retry-after': '0' })
        : json(res, 200, { data: { ok: true } }, { 'x-request-id': 'rid-1' }),
    );
    try {
      const { lines, logger } = recorder();
      const client = new MessagingClient({ baseUrl: server.url, apiKey: KEY, logger, logLevel: 'debug' });
      await client.me();
      expect(lines.map((l) => [l.level, l.message])).toEqual([
        ['debug', '[tenant-messaging] GET /me 503'],
        ['info', '[tenant-messaging] retrying GET /me in 0 ms: the service asked to wait'],
        ['debug', '[tenant-messaging] GET /me 200'],
      ]);
      expect(lines[2]?.fields).toMatchObject({
        method: 'GET',
        path: '/me',
        status: 200,
        attempt: 2,
        requestId: 'rid-1',
      });
      expect(lines[2]?.fields).toHaveProperty('durationMs', expect.any(Number));
      expect(JSON.stringify(lines)).not.toContain(KEY);
    } finally {
      await server.close();
    }
  });

  it('reads TENANT_MESSAGING_LOG, and the default level logs nothing for a normal request', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: {} }));
    try {
      const { lines, logger } = recorder();
      await new MessagingClient({ baseUrl: server.url, apiKey: KEY, logger }).me();
      expect(lines).toEqual([]);
      vi.stubEnv('TENANT_MESSAGING_LOG', 'debug');
      await new MessagingClient({ baseUrl: server.url, apiKey: KEY, logger }).me();
      expect(lines).toHaveLength(1);
      vi.stubEnv('TENANT_MESSAGING_LOG', 'loud');
      expect(() => new MessagingClient({ baseUrl: server.url, apiKey: KEY, logger })).toThrow(
        /logLevel: must be one of/,
      );
    } finally {
      vi.unstubAllEnvs();
      await server.close();
    }
  });
});

describe('per-call options', () => {
  it('are checked before any request', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: {} }));
    try {
      const client = new MessagingClient({ baseUrl: server.url, apiKey: KEY });
      const bad = [
        { timeout: 0 },
        { timeout: Number.NaN },
        { maxRetries: -1 },
        { maxRetries: 2.5 },
        { headers: { 'x-a': 'b\nc' } },
        { headers: { 'x-a': 'caf\u00e9 \u2713' } },
        { headers: { 'two words': 'v' } },
        { headers: 'x-a: b' },
        { signal: {} },
      ];
      for (const options of bad) {
        await expect(client.me(options as never)).rejects.toBeInstanceOf(ValidationError);
      }
      // The rest of a call's input, too: list queries, waitForDelivery options, media sizes.
      const text = { sender_phone: '+1', to_phone: '+2', content: 'x' };
      const badCalls: (() => unknown)[] = [
        () => client.messages.list({ page: { n: 2 } } as never),
        () => client.messages.list('page=2' as never),
        () => client.waitForDelivery(1, { intervall: 500 } as never),
        () => client.waitForDelivery(1, null as never),
        () => client.withOptions(null as never),
        () =>
          client.messages.send({
            ...text,
            type: 'image',
            media: { data: new Uint8Array(1), filename: 'a.png', size: -1 },
          }),
        () =>
          client.messages.send({
            ...text,
            type: 'image',
            media: { data: new Uint8Array(1), filename: 'a.png', size: '1' },
          } as never),
      ];
      for (const call of badCalls) {
        const error = await Promise.resolve()
          .then(call)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ValidationError);
      }
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('a shared signal collects no listeners across calls', async () => {
    const server = await startServer((_req, res) => json(res, 200, { data: {} }));
    try {
      const client = new MessagingClient({ baseUrl: server.url, apiKey: KEY });
      const controller = new AbortController();
      for (let i = 0; i < 20; i++) await client.me({ signal: controller.signal });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
