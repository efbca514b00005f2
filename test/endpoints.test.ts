import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { MessagingClient } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageLog, startServer, type TestServer } from './helpers/server.js';

const KEY = 'tm_test_endpoints';

/** What a request looked like on the wire, whichever transport carried it. */
interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  apiKey: string | null;
  accept: string | null;
  contentType: string | null;
  body: string;
}

/** One fake API for both transports: answers by method and path like the real service. */
function answer(method: string, path: string): { status: number; body: unknown } {
  const route = `${method} ${path.replace(/^\/t\/acme\/api\/v1/, '')}`;
  switch (route) {
    case 'GET /me':
      return { status: 200, body: { data: { tenant: { slug: 'acme' }, key: { scopes: ['messages.read'] } } } };
    case 'GET /subscription':
      return { status: 200, body: { data: { status: 'active', plan: 'growth' } } };
    case 'GET /usage':
      return { status: 200, body: { messages_sent: 12, limit: 1000 } };
    case 'GET /sender-numbers':
      return { status: 200, body: { data: [{ id: 1, phone: '+15550000001', status: 'active' }] } };
    case 'GET /contacts/lookup':
      return { status: 200, body: { data: { phone: '+15550000002', reachable: true } } };
    case 'POST /messages':
      return { status: 201, body: { data: messageLog({ id: 77 }) } };
    case 'GET /messages/77':
      return { status: 200, body: { data: messageLog({ id: 77, delivery_status: 'delivered' }) } };
    case 'GET /messages':
      return { status: 200, body: { data: [messageLog({ id: 2 }), messageLog({ id: 1 })] } };
    default:
      return { status: 404, body: { message: `No route ${route}` } };
  }
}

const transports = {
  async undici() {
    const seen: Seen[] = [];
    const server: TestServer = await startServer((req, res) => {
      const url = new URL(req.url, 'http://x');
      seen.push({
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        apiKey: (req.headers['x-api-key'] as string) ?? null,
        accept: req.headers.accept ?? null,
        contentType: req.headers['content-type'] ?? null,
        body: req.body.toString(),
      });
      const { status, body } = answer(req.method, url.pathname);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    return {
      seen,
      client: new MessagingClient({ baseUrl: `${server.url}/t/acme`, apiKey: KEY }),
      close: () => server.close(),
    };
  },
  async msw() {
    const seen: Seen[] = [];
    const server = setupServer(
      http.all('https://api.test/*', async ({ request }) => {
        const url = new URL(request.url);
        seen.push({
          method: request.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          apiKey: request.headers.get('x-api-key'),
          accept: request.headers.get('accept'),
          contentType: request.headers.get('content-type'),
          body: await request.text(),
        });
        const { status, body } = answer(request.method, url.pathname);
        return HttpResponse.json(body as Record<string, unknown>, { status });
      }),
    );
    server.listen({ onUnhandledFrame: 'error' });
    return {
      seen,
      client: new MessagingClient({ baseUrl: 'https://api.test/t/acme', apiKey: KEY, fetch: globalThis.fetch }),
      close: async () => server.close(),
    };
  },
};

describe.each(Object.keys(transports) as (keyof typeof transports)[])('every endpoint over %s', (name) => {
  let ctx: Awaited<ReturnType<(typeof transports)['undici']>>;
  beforeAll(async () => {
    ctx = await transports[name]();
  });
  afterAll(() => ctx.close());

  const last = () => ctx.seen[ctx.seen.length - 1] as Seen;

  it('client.me() -> GET /me, resolving with data', async () => {
    expect(await ctx.client.me()).toEqual({ tenant: { slug: 'acme' }, key: { scopes: ['messages.read'] } });
    expect(last()).toMatchObject({ method: 'GET', path: '/t/acme/api/v1/me', apiKey: KEY, accept: 'application/json' });
  });

  it('client.subscription() -> GET /subscription', async () => {
    expect(await ctx.client.subscription()).toEqual({ status: 'active', plan: 'growth' });
    expect(last()).toMatchObject({ method: 'GET', path: '/t/acme/api/v1/subscription' });
  });

  it('client.usage() -> GET /usage, resolving with the body when it has no data member', async () => {
    expect(await ctx.client.usage()).toEqual({ messages_sent: 12, limit: 1000 });
    expect(last()).toMatchObject({ method: 'GET', path: '/t/acme/api/v1/usage' });
  });

  it('client.senderNumbers.list() -> GET /sender-numbers', async () => {
    expect(await ctx.client.senderNumbers.list()).toEqual([{ id: 1, phone: '+15550000001', status: 'active' }]);
    expect(last()).toMatchObject({ method: 'GET', path: '/t/acme/api/v1/sender-numbers' });
  });

  it('client.contacts.lookup() -> GET /contacts/lookup?phone&sender_phone', async () => {
    const result = await ctx.client.contacts.lookup({ phone: '+15550000002', sender_phone: '+15550000001' });
    expect(result).toEqual({ phone: '+15550000002', reachable: true });
    expect(last()).toMatchObject({
      method: 'GET',
      path: '/t/acme/api/v1/contacts/lookup',
      query: { phone: '+15550000002', sender_phone: '+15550000001' },
    });
  });

  it('client.messages.send(text) -> POST /messages with a JSON body', async () => {
    const log = await ctx.client.messages.send({
      sender_number_id: 1,
      to_phone: '+15550000002',
      type: 'text',
      content: 'Hello',
    });
    expect(log.id).toBe(77);
    expect(last()).toMatchObject({ method: 'POST', path: '/t/acme/api/v1/messages', contentType: 'application/json' });
    expect(JSON.parse(last().body)).toEqual({
      sender_number_id: 1,
      to_phone: '+15550000002',
      type: 'text',
      content: 'Hello',
    });
  });

  it('client.messages.send(media) -> POST /messages as multipart/form-data', async () => {
    await ctx.client.messages.send({
      sender_phone: '+15550000001',
      to_phone: '+15550000002',
      type: 'document',
      media: new File(['%PDF-1.4'], 'terms.pdf', { type: 'application/pdf' }),
    });
    expect(last().contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(last().body).toContain('filename="terms.pdf"');
    expect(last().body).toContain('%PDF-1.4');
  });

  it('client.messages.get(id) -> GET /messages/{id}, resolving with the log', async () => {
    const log = await ctx.client.messages.get(77);
    expect(log).toMatchObject({ id: 77, delivery_status: 'delivered' });
    expect(last()).toMatchObject({ method: 'GET', path: '/t/acme/api/v1/messages/77' });
  });

  it('client.messages.list(query) -> GET /messages with the query passed through', async () => {
    const page = await ctx.client.messages.list({ page: 1, status: 'sent', tags: ['a', 'b'] });
    expect(page.data.map((l) => l.id)).toEqual([2, 1]);
    expect(last()).toMatchObject({
      method: 'GET',
      path: '/t/acme/api/v1/messages',
      query: { page: '1', status: 'sent' },
    });
  });

  it('client.waitForDelivery(id) polls GET /messages/{id}', async () => {
    const log = await ctx.client.waitForDelivery(77, { interval: 10, timeout: 2_000 });
    expect(log.delivery_status).toBe('delivered');
    expect(last()).toMatchObject({ method: 'GET', path: '/t/acme/api/v1/messages/77' });
  });
});
