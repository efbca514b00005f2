/**
 * A 404 tells a wrong URL from a wrong id, over real HTTP: what Laravel answers (the golden
 * captures' bodies), what a proxy answers, and the one read of `/me` that settles a 404 whose body
 * names neither a model nor a route. Then the sandbox itself, with a base URL that lacks its tenant path.
 */
import { MessagingClient, NotFoundError } from 'tenant-messaging';
import { createSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, type TestServer } from '../helpers/server.js';

type Answer = { status: number; body: unknown };
let server: TestServer;
let answers: { log: Answer; me: Answer };

beforeAll(async () => {
  server = await startServer((req, res) => {
    const answer = req.url.endsWith('/me') ? answers.me : answers.log;
    if (answer.status === 0) return void res.destroy();
    json(res, answer.status, answer.body);
  });
});
afterAll(() => server.close());

const client = () => new MessagingClient({ baseUrl: `${server.url}/t/acme`, apiKey: 'tm_k', maxRetries: 0 });
const ME_OK: Answer = { status: 200, body: { data: { tenant: 'acme' } } };
const ME_404: Answer = { status: 404, body: { message: '' } };

async function notFound(run: () => PromiseLike<unknown>): Promise<NotFoundError> {
  const error = await Promise.resolve(run()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NotFoundError);
  return error as NotFoundError;
}
const probes = (from: number) => server.requests.slice(from).filter((r) => r.url.endsWith('/me')).length;

describe('a 404 tells a wrong URL from a wrong id', () => {
  it('Laravel’s model not found: the log, by id, in our words; no read of /me', async () => {
    answers = {
      log: { status: 404, body: { message: 'No query results for model [App\\Models\\MessageLog] 999' } },
      me: ME_OK,
    };
    const from = server.requests.length;
    const error = await notFound(() => client().messages.get(999));
    expect(error.code).toBe('not_found.message_log');
    expect(error.messageLogId).toBe(999);
    expect(error.message).toMatch(/^Message log 999 does not exist in this tenant's workspace \(HTTP 404 Not Found\)/);
    expect(error.message).not.toContain('App\\Models');
    expect(error.serverMessage).toBe('No query results for model [App\\Models\\MessageLog] 999');
    expect(probes(from)).toBe(0);
  });

  it('Laravel 12’s unknown route: the base URL, named as given; no read of /me', async () => {
    answers = {
      log: { status: 404, body: { message: 'The route acme/api/v1/messages/1 could not be found.' } },
      me: ME_OK,
    };
    const from = server.requests.length;
    const error = await notFound(() => client().messages.get(1));
    expect(error.code).toBe('not_found.route');
    expect(error.messageLogId).toBeUndefined();
    expect(error.baseUrl).toBe(`${server.url}/t/acme`);
    expect(error.url).toBe(`${server.url}/t/acme/api/v1/messages/1`);
    expect(error.message).toContain(`without /api/v1 (given: ${server.url}/t/acme)`);
    expect(probes(from)).toBe(0);
  });

  it.each([
    ['Laravel 8’s empty message', { message: '' }],
    ['a proxy’s HTML page', '<html><title>404 Not Found</title></html>'],
    ['a message that names nothing', { message: 'Not found.' }],
  ])('%s on a log: one read of /me settles it (404 there: the URL; an answer: the log)', async (_what, body) => {
    answers = { log: { status: 404, body }, me: ME_404 };
    let from = server.requests.length;
    expect((await notFound(() => client().messages.get(7))).code).toBe('not_found.route');
    expect(probes(from)).toBe(1);
    for (const me of [ME_OK, { status: 401, body: { message: 'Unauthenticated.' } }, { status: 0, body: null }]) {
      answers = { log: { status: 404, body }, me };
      from = server.requests.length;
      const error = await notFound(() => client().messages.get(7));
      expect(error.code).toBe('not_found.message_log');
      expect(error.messageLogId).toBe(7);
      expect(probes(from)).toBe(1);
    }
  });

  it('a path without an id cannot name a missing record: the URL, at once', async () => {
    answers = { log: ME_404, me: ME_404 };
    const c = client();
    for (const call of [() => c.me(), () => c.usage(), () => c.senderNumbers.list(), () => c.messages.list()]) {
      const from = server.requests.length;
      expect((await notFound(call)).code).toBe('not_found.route');
      expect(server.requests.length - from).toBe(1);
    }
  });

  it('client.request(): a table path as the table’s, any other path a resource unless the body says route', async () => {
    answers = {
      log: { status: 404, body: { message: 'No query results for model [App\\Models\\MessageLog] 5' } },
      me: ME_OK,
    };
    expect((await notFound(() => client().request({ method: 'GET', path: '/messages/5' }))).code).toBe(
      'not_found.message_log',
    );
    answers = { log: { status: 404, body: { message: '' } }, me: ME_OK };
    expect((await notFound(() => client().request({ method: 'GET', path: '/nope/5' }))).code).toBe(
      'not_found.resource',
    );
    answers = {
      log: { status: 404, body: { message: 'The route t/acme/api/v1/nope could not be found.' } },
      me: ME_OK,
    };
    expect((await notFound(() => client().request({ method: 'GET', path: '/nope' }))).code).toBe('not_found.route');
  });
});

describe('the sandbox, with a base URL that lacks its tenant path', () => {
  it('is a wrong URL, and a missing log of the right URL is the log', async () => {
    const sandbox = createSandbox();
    const { baseUrl, keys } = sandbox.tenants.acme;
    const wrong = new MessagingClient({ baseUrl: new URL(baseUrl).origin, apiKey: keys.full, fetch: sandbox.fetch });
    const error = await notFound(() => wrong.messages.get(1));
    expect(error.code).toBe('not_found.route');
    expect(error.message).toContain(`(given: ${new URL(baseUrl).origin})`);
    const right = new MessagingClient({ baseUrl, apiKey: keys.full, fetch: sandbox.fetch });
    expect((await notFound(() => right.messages.get(123_456))).code).toBe('not_found.message_log');
  });
});
