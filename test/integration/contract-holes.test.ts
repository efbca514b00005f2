/** Small holes in the contract with the service, each closed for its whole class of answers. */
import fc from 'fast-check';
import {
  APIError,
  MessagingClient,
  ResponseValidationError,
  SendOutcomeUnknownError,
  ValidationError,
} from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import { json, messageLog, startServer, type TestServer } from '../helpers/server.js';

const TEXT = { sender_phone: '+15550000001', to_phone: '+15550000002', type: 'text', content: 'Hi' } as const;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a log whose id is not the one asked for', () => {
  it('is a ResponseValidationError for messages.get and waitForDelivery, whatever the ids', async () => {
    let answerId = 2;
    server = await startServer((_req, res) =>
      json(res, 200, { data: messageLog({ id: answerId, delivery_status: 'delivered' }) }),
    );
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
    await fc.assert(
      fc.asyncProperty(id, id, async (asked, answered) => {
        fc.pre(asked !== answered);
        answerId = answered;
        const get = await client.messages.get(asked).catch((error: unknown) => error);
        expect(get).toBeInstanceOf(ResponseValidationError);
        expect((get as ResponseValidationError).issues[0]?.path).toBe('data.id');
        const wait = await client.waitForDelivery(asked, { interval: 10, timeout: 1_000 }).catch((e: unknown) => e);
        expect(wait).toBeInstanceOf(ResponseValidationError);
      }),
      { seed: 3, numRuns: 20 },
    );
  });
});

describe('a 3xx answer', () => {
  it('to a send is an unknown outcome (it may have been processed), sent once and never followed', async () => {
    let status = 303;
    server = await startServer((_req, res) => {
      res.writeHead(status, { location: 'https://elsewhere.example/messages/1' }).end();
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 300, max: 399 }), async (code) => {
        status = code;
        const before = server?.requests.length ?? 0;
        const error = await client.messages.send(TEXT).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(SendOutcomeUnknownError);
        expect((error as Error).cause).toBeInstanceOf(APIError);
        expect(((error as Error).cause as APIError).status).toBe(code);
        expect(server?.requests.length).toBe(before + 1);
      }),
      { seed: 4, numRuns: 15 },
    );
  });

  it('to a send, through a fetch that follows it anyway: still an unknown outcome, never "nothing was sent"', async () => {
    server = await startServer((req, res) => {
      if (req.method === 'POST') res.writeHead(303, { location: '/api/v1/messages/1' }).end();
      else json(res, 200, { data: messageLog({ id: 1 }) });
    });
    const client = new MessagingClient({
      baseUrl: server.url,
      apiKey: 'k',
      fetch: (input, init) => fetch(input, { ...init, redirect: 'follow' }),
    });
    const error = await client.messages.send(TEXT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect((error as Error).cause).toBeInstanceOf(ValidationError);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('to a read is an APIError that says redirects are not followed, and is not retried', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/' }).end();
    });
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k' });
    const error = await client.messages.get(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toMatch(/does not follow redirects/);
    expect(server.requests.length).toBe(1);
  });
});
