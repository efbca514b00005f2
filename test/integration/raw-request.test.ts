/** `client.request()`: endpoints the SDK does not wrap, through the same executor as every call. */
import fc from 'fast-check';
import {
  InternalServerError,
  MessagingClient,
  OutcomeUnknownError,
  ResponseValidationError,
  SendOutcomeUnknownError,
  ValidationError,
} from 'tenant-messaging';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { json, startServer, type TestServer } from '../helpers/server.js';

const KEY = 'tm_test_raw';
let server: TestServer | undefined;
afterEach(() => server?.close());

async function serve(statuses: number[]) {
  server = await startServer((_req, res, index) => {
    const code = statuses[index] ?? 200;
    if (code >= 400) json(res, code, { message: `HTTP ${code}` }, { 'retry-after': '0' });
    else json(res, code, { data: { id: 1, phone: '+15550001001' } });
  });
  return new MessagingClient({ baseUrl: `${server.url}/t/acme`, apiKey: KEY });
}

describe('client.request()', () => {
  it('sends the method, the path below /api/v1, the query, the JSON body and the key', async () => {
    const client = await serve([201]);
    const result = await client.request({
      method: 'POST',
      path: '/sender-numbers',
      query: { verify: true },
      body: { phone: '+15550009999' },
    });
    expect(result).toEqual({ data: { id: 1, phone: '+15550001001' } });
    const seen = server?.requests[0];
    expect(seen).toMatchObject({ method: 'POST', url: '/t/acme/api/v1/sender-numbers?verify=true' });
    expect(seen?.headers['x-api-key']).toBe(KEY);
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body.toString() ?? '')).toEqual({ phone: '+15550009999' });
  });

  it('a GET is retried like every read', async () => {
    const client = await serve([503, 503, 200]);
    await expect(client.request({ method: 'GET', path: '/sender-numbers/1' })).resolves.toMatchObject({
      data: { id: 1 },
    });
    expect(server?.requests).toHaveLength(3);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    'a %s that may have arrived is never retried: OutcomeUnknownError (not the send-specific subclass)',
    async (method) => {
      const client = await serve([500, 200]);
      const error = await client.request({ method, path: '/api-keys/3' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).not.toBeInstanceOf(SendOutcomeUnknownError);
      expect((error as Error).cause).toBeInstanceOf(InternalServerError);
      expect(server?.requests).toHaveLength(1);
    },
  );

  it('a POST refused with 429 is retried (the service said it did not process it)', async () => {
    const client = await serve([429, 201]);
    await expect(client.request({ method: 'POST', path: '/sender-numbers' })).resolves.toBeDefined();
    expect(server?.requests).toHaveLength(2);
  });

  it('validates and types the answer with a schema', async () => {
    const client = await serve([200, 200]);
    const schema = z.object({ data: z.object({ id: z.number(), phone: z.string() }) });
    const typed = await client.request({ method: 'GET', path: '/sender-numbers/1', schema });
    expect(typed.data.phone).toBe('+15550001001');
    const wrong = z.object({ data: z.object({ id: z.string() }) });
    const error = await client.request({ method: 'GET', path: '/sender-numbers/1', schema: wrong }).catch((e) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toBe('data.id');
  });

  it('refuses, before any request, every path that could leave /api/v1 or the base origin', async () => {
    const client = await serve([]);
    const escapes = fc.oneof(
      fc.constantFrom(
        'https://evil.example/steal',
        '//evil.example/steal',
        '/../../admin',
        '/a/../../b',
        '/%2e%2e/x',
        '/%2E%2E/%2e%2e/x',
        '/./x',
        '\\\\evil.example\\x',
        '/x\\..\\..\\y',
        '/x?y=1',
        '/x#y',
        'relative/path',
        '',
        '/x\ny',
      ),
      fc.string().filter((path) => !path.startsWith('/')),
      fc.tuple(fc.constantFrom('/', '/a/'), fc.constantFrom('..', '%2e%2e', '.', '%2E')).map(([a, b]) => `${a}${b}/z`),
    );
    await fc.assert(
      fc.asyncProperty(escapes, fc.constantFrom('GET', 'POST'), async (path, method) => {
        const error = await client.request({ method, path }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).field).toBe('path');
      }),
      { seed: 21, numRuns: 100 },
    );
    expect(server?.requests).toHaveLength(0);
  });

  it('refuses a bad method, a body with GET, a body that is not JSON, an unknown key, and a bad schema', async () => {
    const client = await serve([]);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const bad = [
      { method: 'TRACE', path: '/x' },
      { method: 'GET', path: '/x', body: { a: 1 } },
      { method: 'POST', path: '/x', body: cyclic },
      { method: 'POST', path: '/x', body: 10n },
      { method: 'GET', path: '/x', schema: {} },
      { method: 'GET', path: '/x', bodyy: 1 },
      null,
    ];
    for (const request of bad) {
      await expect(client.request(request as never)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(server?.requests).toHaveLength(0);
  });
});
