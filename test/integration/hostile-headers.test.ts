import fc from 'fast-check';
import { MessagingClient, RateLimitError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

// A header sent more than once (a proxy adding its own Retry-After, a framework doubling it)
// reaches the SDK joined with ", ". The wait the service asked for must survive that.

let server: TestServer;
let client: MessagingClient;
let headers: Record<string, string[]> = {};

beforeAll(async () => {
  server = await startServer((_req, res) => {
    for (const [name, values] of Object.entries(headers)) res.setHeader(name, values);
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end('{"message":"Too Many Attempts."}');
  });
  // adaptive: false: the Retry-After values read here would otherwise hold this shared client at its rate gate.
  client = new MessagingClient({
    baseUrl: server.url,
    apiKey: 'tm_test_key',
    maxRetries: 0,
    rateLimit: { adaptive: false },
  });
});
afterAll(() => server.close());

async function retryAfter(): Promise<number | undefined> {
  const error = await client.messages.get(1, { maxRetries: 0 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RateLimitError);
  return (error as RateLimitError).retryAfter;
}

describe('duplicated delay headers', () => {
  it('Retry-After in seconds, sent 2 to 500 times: the first value is the wait', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 86_400 }),
        // 500 copies stay under undici's 16 KiB limit on response headers.
        fc.integer({ min: 2, max: 500 }),
        async (seconds, copies) => {
          headers = { 'retry-after': Array.from({ length: copies }, () => String(seconds)) };
          expect(await retryAfter()).toBe(seconds * 1000);
        },
      ),
      { seed: 99, numRuns: 60 },
    );
  });

  it('X-RateLimit-Reset sent twice: the first timestamp gives the wait', async () => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    headers = { 'x-ratelimit-reset': [String(reset), String(reset)] };
    const wait = (await retryAfter()) ?? -1;
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });
});
