import { inspect } from 'node:util';
import fc from 'fast-check';
import { APIConnectionError, MessagingClient } from 'tenant-messaging';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configError } from '../helpers/errors.js';
import { type ForwardProxy, startForwardProxy } from '../helpers/forward-proxy.js';
import { refusedUrl } from '../helpers/server.js';

const KEY = 'tm_live_PROXY_key_123';

/** Credentials distinctive enough that finding them in a text cannot be a coincidence. */
const credentials = fc.record({
  user: fc.string({ minLength: 1, maxLength: 10 }).map((s) => `U5er-${s}`),
  pass: fc.string({ minLength: 1, maxLength: 10 }).map((s) => `Pa55-${s}`),
});

/** Every form a proxy's credentials take: as typed, URL-encoded, and as the Basic token. */
function forms(user: string, pass: string): string[] {
  return [pass, encodeURIComponent(pass), Buffer.from(`${user}:${pass}`).toString('base64')];
}

function expectNoneIn(text: string, secrets: string[]): void {
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/** Everything a person could read from a failed call: the error deep, the log lines, the client. */
async function whatIsShown(proxy: string, baseUrl: string): Promise<{ text: string; error: unknown }> {
  const lines: unknown[] = [];
  const record = (...args: unknown[]) => lines.push(args);
  const client = new MessagingClient({
    baseUrl,
    apiKey: KEY,
    proxy,
    maxRetries: 1,
    logLevel: 'debug',
    logger: { debug: record, info: record, warn: record, error: record },
  });
  // One retry: its delay is a little random, so keep the test quick with a tight deadline instead.
  const error = await client.me({ timeout: 2_000 }).catch((e: unknown) => e);
  await client.close();
  const text = [
    String(error),
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify(lines),
    inspect(lines, { depth: Number.POSITIVE_INFINITY }),
    inspect(client, { showHidden: true }),
    JSON.stringify(client),
  ].join('\n');
  return { text, error };
}

describe('proxy credentials are never shown', () => {
  let refusedPort: string;
  let strict: ForwardProxy;
  beforeAll(async () => {
    refusedPort = new URL(await refusedUrl()).port;
    strict = await startForwardProxy('Basic bm90LXRoZXNlOm9uZXM='); // wants other credentials: 407
  });
  afterAll(() => strict.close());

  it('a proxy that refuses connections: the error names the proxy, credentials redacted', async () => {
    await fc.assert(
      fc.asyncProperty(credentials, fc.boolean(), async ({ user, pass }, https) => {
        const proxy = `http://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${refusedPort}`;
        const { text, error } = await whatIsShown(proxy, `${https ? 'https' : 'http'}://127.0.0.1:9`);
        expect(error).toBeInstanceOf(APIConnectionError);
        expect((error as APIConnectionError).neverSent).toBe(true);
        expect((error as Error).message).toContain(`through the proxy http://***@127.0.0.1:${refusedPort}/`);
        expectNoneIn(text, forms(user, pass));
      }),
      { seed: 7, numRuns: 4 },
    );
  });

  it('a proxy that answers 407, forwarding (http) or tunnelling (https)', async () => {
    await fc.assert(
      fc.asyncProperty(credentials, fc.boolean(), async ({ user, pass }, https) => {
        const proxy = `http://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${strict.port}`;
        const { text, error } = await whatIsShown(proxy, `${https ? 'https' : 'http'}://127.0.0.1:9`);
        expect((error as Error).message).toContain('407');
        expectNoneIn(text, forms(user, pass));
      }),
      { seed: 8, numRuns: 4 },
    );
  });

  it('an invalid proxy URL holding credentials is refused without repeating it', () => {
    fc.assert(
      fc.property(credentials, fc.constantFrom('ftp:', 'socks5:', 'file:', 'ws:'), ({ user, pass }, scheme) => {
        const proxy = `${scheme}//${encodeURIComponent(user)}:${encodeURIComponent(pass)}@proxy.internal:3128`;
        const error = configError(() => new MessagingClient({ baseUrl: 'https://a.example', apiKey: KEY, proxy }));
        expect(error.issues.map((i) => i.path)).toEqual(['proxy']);
        // A file: URL cannot hold credentials at all: it is not a URL.
        expect(error.issues[0]?.message).toMatch(/^must be 'env' or a proxy URL: it (must be an http|is not a URL)/);
        expectNoneIn(`${error.message}\n${inspect(error, { depth: 5 })}`, forms(user, pass));
      }),
      { seed: 9, numRuns: 20 },
    );
  });
});

describe('the proxy option is checked', () => {
  const base = { baseUrl: 'https://acme.example.com', apiKey: KEY };

  it('any string that is not an http(s) origin URL is a ValidationError naming proxy', () => {
    const isOrigin = (s: string) => {
      const url = URL.parse(s);
      return (
        url !== null && /^https?:$/.test(url.protocol) && url.pathname === '/' && url.search === '' && url.hash === ''
      );
    };
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.webPath()),
        (proxy) => {
          fc.pre(proxy !== 'env' && !isOrigin(proxy));
          const error = configError(() => new MessagingClient({ ...base, proxy }));
          expect(error.issues.map((i) => i.path)).toEqual(['proxy']);
          expect(error.message).toMatch(/http:\/\/ or https:\/\/|a URL|origin only/);
        },
      ),
      { seed: 10, numRuns: 100 },
    );
  });

  it.each([42, true, {}, new URL('http://proxy.internal:3128'), ['http://p:1']])('%o is refused', (proxy) => {
    const error = configError(() => new MessagingClient({ ...base, proxy: proxy as unknown as string }));
    expect(error.issues.map((i) => i.path)).toEqual(['proxy']);
    expect(error.issues[0]?.message).toMatch(/^must be 'env' or a proxy URL string/);
  });

  it('with dispatcher or fetch: pass one or the other', () => {
    const dispatcher = new Agent();
    for (const other of [{ dispatcher }, { fetch: globalThis.fetch }]) {
      const error = configError(() => new MessagingClient({ ...base, proxy: 'http://127.0.0.1:3128', ...other }));
      expect(error.message).toMatch(/proxy.*one or the other/);
    }
    return dispatcher.close();
  });

  it('plain http to the API through a proxy on another host needs allowInsecureHttp', () => {
    const options = { baseUrl: 'http://127.0.0.1:8080', apiKey: KEY, proxy: 'http://proxy.internal:3128' };
    expect(configError(() => new MessagingClient(options)).message).toMatch(/proxy.*would read the API key/);
    expect(() => new MessagingClient({ ...options, allowInsecureHttp: true })).not.toThrow();
    expect(() => new MessagingClient({ ...options, baseUrl: 'https://acme.example.com' })).not.toThrow();
  });

  it("'env' too: plain http to the API through HTTP_PROXY on another host needs allowInsecureHttp", () => {
    const names = ['HTTP_PROXY', 'http_proxy'] as const;
    const saved = names.map((name) => process.env[name]);
    for (const name of names) delete process.env[name];
    process.env['HTTP_PROXY'] = 'http://proxy.corp.example:3128';
    try {
      const options = { baseUrl: 'http://127.0.0.1:8080', apiKey: KEY, proxy: 'env' as const };
      expect(configError(() => new MessagingClient(options)).message).toMatch(/HTTP_PROXY.*would read the API key/);
      expect(() => new MessagingClient({ ...options, allowInsecureHttp: true })).not.toThrow();
      expect(() => new MessagingClient({ ...options, baseUrl: 'https://acme.example.com' })).not.toThrow();
    } finally {
      names.forEach((name, i) => {
        if (saved[i] === undefined) delete process.env[name];
        else process.env[name] = saved[i];
      });
    }
  });

  it("'env' with a variable that is not an http(s) URL names the variable", () => {
    for (const [name, value] of [
      ['HTTP_PROXY', 'proxy.internal:3128'],
      ['https_proxy', 'socks5://u:Pa55-x@proxy.internal:1080'],
    ] as const) {
      const saved = process.env[name];
      process.env[name] = value;
      try {
        const error = configError(() => new MessagingClient({ ...base, proxy: 'env' }));
        expect(error.message).toContain(name);
        expect(error.message).not.toContain('Pa55-x');
      } finally {
        if (saved === undefined) delete process.env[name];
        else process.env[name] = saved;
      }
    }
  });
});
