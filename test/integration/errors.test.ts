import { inspect } from 'node:util';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  InternalServerError,
  MessagingClient,
  MessagingError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
  ValidationError,
} from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, messageLog, refusedUrl, startServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const KEY = 'tm_live_TOP_SECRET_0123456789';
let server: TestServer;
let client: MessagingClient;
let reply: (res: import('node:http').ServerResponse) => void;

beforeAll(async () => {
  server = await startServer((_req, res) => reply(res));
  // adaptive: false: one 429's Retry-After would otherwise hold this shared client's later tests at its rate gate.
  client = new MessagingClient({ baseUrl: server.url, apiKey: KEY, maxRetries: 0, rateLimit: { adaptive: false } });
});
afterAll(() => server.close());

async function failure(run: () => Promise<unknown>): Promise<MessagingError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MessagingError);
  return error as MessagingError;
}

describe('HTTP statuses map to typed errors', () => {
  it.each([
    [401, { message: 'Unauthenticated.' }, AuthenticationError, 'auth.invalid_key'],
    [403, { message: 'The API key does not include the required scope.' }, PermissionDeniedError, 'scope.missing'],
    // Every path answers this 404, /me too: a wrong base URL, not a missing log.
    [404, { message: 'Not found.' }, NotFoundError, 'not_found.route'],
    [422, { message: 'The to phone field is required.' }, UnprocessableEntityError, 'validation.rejected'],
    [429, { message: 'Too Many Attempts.' }, RateLimitError, 'rate_limit.exceeded'],
    [500, { message: 'Server Error' }, InternalServerError, 'server.error'],
    [503, { message: 'Service Unavailable' }, InternalServerError, 'server.error'],
    [409, { message: 'Conflict here' }, APIError, 'http.status'],
  ])('%i -> %o', async (status, body, Class, code) => {
    reply = (res) => json(res, status, body, { 'x-request-id': `req-${status}` });
    const error = (await failure(() => client.messages.get(1))) as APIError;
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    // The service's words on serverMessage; the message is the SDK's, naming the status.
    expect(error.serverMessage).toBe(body.message);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message.startsWith(body.message)).toBe(false);
    expect(error.body).toEqual(body);
    expect(error.requestId).toBe(`req-${status}`);
    expect(error.headers['content-type']).toBe('application/json');
    expect(error.name).toBe(Class.name);
  });

  it('422 carries the field errors', async () => {
    reply = (res) =>
      json(res, 422, {
        message: 'The to phone field is required. (and 1 more error)',
        errors: { to_phone: ['The to phone field is required.'], media: ['The media field is required.'] },
      });
    const error = (await failure(() =>
      client.messages.send({ sender_phone: '+1', to_phone: '+2', type: 'text', content: 'x' }),
    )) as UnprocessableEntityError;
    expect(error.errors).toEqual({
      to_phone: ['The to phone field is required.'],
      media: ['The media field is required.'],
    });
  });

  it('429 carries retryAfter in ms, from seconds or an HTTP date', async () => {
    reply = (res) => json(res, 429, { message: 'Too Many Attempts.' }, { 'retry-after': '7' });
    expect(((await failure(() => client.me())) as RateLimitError).retryAfter).toBe(7_000);
    const date = new Date(Date.now() + 30_000).toUTCString();
    reply = (res) => json(res, 429, { message: 'Too Many Attempts.' }, { 'retry-after': date });
    const fromDate = ((await failure(() => client.me())) as RateLimitError).retryAfter ?? 0;
    expect(fromDate).toBeGreaterThan(25_000);
    expect(fromDate).toBeLessThanOrEqual(30_000);
  });

  it('an HTML 502 page from a proxy still gives InternalServerError and a readable message', async () => {
    reply = (res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>');
    };
    const error = (await failure(() => client.me())) as InternalServerError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toBe(
      'The service, or a proxy in front of it, failed: HTTP 502 Bad Gateway (an HTML page titled "502 Bad Gateway", probably from a proxy in front of the API).',
    );
    expect(error.serverMessage).toBeUndefined();
    expect(error.body).toContain('<center>nginx</center>');
  });

  it('an empty or plain-text error body still gives a readable message', async () => {
    reply = (res) => res.writeHead(500).end();
    expect((await failure(() => client.me())).message).toBe(
      'The service, or a proxy in front of it, failed: HTTP 500 Internal Server Error (empty body).',
    );
    reply = (res) => res.writeHead(418, { 'content-type': 'text/plain' }).end('short and stout');
    expect((await failure(() => client.me())).message).toBe(
      `The service answered GET ${server.url}/api/v1/me with HTTP 418 (text/plain body: "short and stout").`,
    );
  });

  it('a redirect is not followed, and says why', async () => {
    reply = (res) => res.writeHead(302, { location: 'https://elsewhere.example/login' }).end();
    const error = (await failure(() => client.me())) as APIError;
    expect(error.status).toBe(302);
    expect(error.message).toContain('does not follow redirects');
    expect(server.requests.at(-1)?.url).toBe('/api/v1/me');
  });
});

describe('bodies that break the specification', () => {
  it('a MessageLog missing fields raises ResponseValidationError with the issues and the raw body', async () => {
    const body = { data: { ...messageLog(), delivery_status: undefined, sent_at: 'yesterday' } };
    reply = (res) => json(res, 200, body);
    const error = (await failure(() => client.messages.get(1))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues.map((i) => i.path).sort()).toEqual(['data.delivery_status', 'data.sent_at']);
    expect(error.body).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('a 2xx body that is not JSON raises ResponseValidationError', async () => {
    reply = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    const error = (await failure(() => client.me())) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.body).toBe('<html>maintenance</html>');
  });

  it('forward compatible: unknown fields are kept, unknown enum values do not throw, [] request_payload reads as {}', async () => {
    reply = (res) =>
      json(res, 200, {
        data: messageLog({
          delivery_status: 'failed',
          message_type: 'sticker',
          request_payload: [],
          channel: 'whatsapp',
        }),
      });
    const log = await client.messages.get(42);
    expect(log.delivery_status).toBe('failed');
    expect(log.message_type).toBe('sticker');
    expect(log.request_payload).toEqual({});
    expect((log as unknown as Record<string, unknown>)['channel']).toBe('whatsapp');
  });
});

describe('network failures', () => {
  it('a refused connection is an APIConnectionError naming the cause', async () => {
    const url = await refusedUrl();
    const error = await failure(() => new MessagingClient({ baseUrl: url, apiKey: KEY, maxRetries: 0 }).me());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toContain('ECONNREFUSED');
  });

  // The service never answers (the test server ends the socket when it closes): what ends the
  // call is the client's own deadline or signal, or nothing before the test's timeout.
  it('a slow answer is an APITimeoutError after `timeout`', async () => {
    reply = () => undefined;
    const error = await failure(() => client.me({ timeout: 100 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toContain('100 ms');
  });

  it('an abort rejects with the signal reason, at once', async () => {
    reply = () => undefined;
    const controller = new AbortController();
    // The default 30 s deadline would end it otherwise: as APITimeoutError, not the reason.
    const before = server.requests.length;
    const pending = client.me({ signal: controller.signal });
    await until(
      () => server.requests.length > before,
      () => 'the request never arrived',
    );
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
  });
});

describe('the API key never leaks through errors', () => {
  it('is absent from message, stack, JSON and inspect of every error kind', async () => {
    const errors: unknown[] = [];
    for (const status of [401, 403, 404, 422, 429, 500]) {
      reply = (res) => json(res, status, { message: 'nope' });
      errors.push(await failure(() => client.me()));
    }
    errors.push(await failure(() => client.messages.get(-1)));
    const url = await refusedUrl();
    errors.push(await failure(() => new MessagingClient({ baseUrl: url, apiKey: KEY, maxRetries: 0 }).me()));
    for (const error of errors) {
      const e = error as Error;
      for (const text of [e.message, e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10, showHidden: true })]) {
        expect(text).not.toContain(KEY);
      }
    }
  });

  it('ValidationError for ids', async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '42', null, undefined, 2 ** 53]) {
      const error = await failure(() => client.messages.get(bad as number));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/integer >= 1/);
    }
  });
});
