/**
 * The undici transport's own handler (src/core/transport/undici-exchange.ts): the URL split that replaces
 * undici's `new URL()` on every call, and what it reads off the wire, over real HTTP.
 */
import fc from 'fast-check';
import { MessagingClient } from 'tenant-messaging';
import { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { splitUrl } from '../../../src/core/transport/undici-exchange.js';
import { messageLog, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('splitUrl', () => {
  const segment = fc.stringMatching(/^[\w\-.~!$&'()*+,;=:@%]{0,12}$/);
  const odd = fc.constantFrom('..', '.', '%2e', '%2E%2e', 'é', ' ', '"', '<', '\\', '|', '^', '`', '{', '#');
  const host = fc.constantFrom(
    'http://127.0.0.1:8080',
    'https://acme.example.com',
    'http://[::1]:3000',
    'https://x.io',
  );
  const urls = fc
    .tuple(host, fc.array(fc.oneof({ weight: 6, arbitrary: segment }, { weight: 1, arbitrary: odd }), { maxLength: 6 }))
    .chain(([origin, parts]) =>
      fc
        .option(fc.stringMatching(/^[\w\-.~=&%+,]{0,20}$/), { nil: undefined })
        .map((query) => `${origin}/${parts.join('/')}${query === undefined ? '' : `?${query}`}`),
    );

  it('gives the origin and the path URL gives, for every URL it does not hand to URL', () => {
    fc.assert(
      fc.property(urls, (url) => {
        const parsed = new URL(url);
        expect(splitUrl(url)).toEqual({ origin: parsed.origin, path: parsed.pathname + parsed.search });
      }),
      { numRuns: 2000, seed: 20261123 },
    );
  });
});

describe('the response as the handler reads it', () => {
  it('drops a UTF-8 byte order mark before the JSON, as fetch does', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ data: messageLog() }))]));
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    await expect(client.messages.get(42)).resolves.toMatchObject({ id: 42 });
    await client.close();
  });

  it('reads a body sent in many small chunks whole, and a multi-byte character split across two', async () => {
    const content = 'Grüße, 世界 👋'.repeat(50);
    server = await startServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const bytes = Buffer.from(JSON.stringify({ data: messageLog({ content }) }));
      for (let i = 0; i < bytes.length; i += 7) {
        res.write(bytes.subarray(i, i + 7));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    await expect(client.messages.get(42)).resolves.toMatchObject({ content });
    await client.close();
  });
});

describe('what the handler accepts', () => {
  it('a HEAD answer declaring a body over the size limit is not refused: it carries no body', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(64 * 1024 * 1024), 'x-request-id': 'head-1' });
      res.end();
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const { response } = await client.request({ method: 'HEAD', path: '/media/1' }).withResponse();
    expect([response.status, response.requestId]).toEqual([200, 'head-1']);
    await client.close();
  });

  it("a caller's dispatcher that hands over plain Uint8Array chunks is read as bytes", async () => {
    const body = new TextEncoder().encode(JSON.stringify({ data: messageLog() }));
    class Bytes extends Dispatcher {
      override dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        const controller = {
          abort() {},
          pause() {},
          resume() {},
          aborted: false,
          paused: false,
          reason: null,
        } as unknown as Dispatcher.DispatchController;
        queueMicrotask(() => {
          handler.onRequestStart?.(controller, {});
          handler.onResponseStart?.(controller, 200, { 'content-type': 'application/json' }, 'OK');
          handler.onResponseData?.(controller, body as Buffer);
          handler.onResponseEnd?.(controller, {});
        });
        return true;
      }
    }
    const client = new MessagingClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', dispatcher: new Bytes() });
    await expect(client.messages.get(42)).resolves.toMatchObject({ id: 42 });
  });
});
