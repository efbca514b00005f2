/** A body nested deeply enough to hold JSON.parse for seconds is refused after one linear scan. */
import fc from 'fast-check';
import { InternalServerError, MessagingClient, ResponseValidationError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchLoopStalls } from '../helpers/loop-stall.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let body = '';
let status = 200;
beforeAll(async () => {
  server = await startServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
});
afterAll(() => server.close());

/** `[[[...]]]`, `{"a":{"a":...}}` or a mix, `depth` levels deep, with brackets in strings on the way. */
function nested(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  const open: string[] = [];
  for (let i = 0; i < depth; i++) {
    const array = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    open.push(array ? '["[{",' : '{"k]}":0,"a":');
  }
  const close = open.map((part) => (part.startsWith('[') ? ']' : '}')).reverse();
  return `${open.join('')}1${close.join('')}`;
}

describe('deeply nested bodies', () => {
  it('are refused quickly, as a ResponseValidationError for 2xx and a typed APIError otherwise', async () => {
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    await client.me().catch(() => undefined); // warm up: undici and the schemas are loaded
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 200_000, max: 600_000 }),
        fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
        fc.constantFrom(200, 500),
        async (depth, kind, code) => {
          body = nested(depth, kind);
          status = code;
          const stalls = watchLoopStalls();
          const error = await client
            .me()
            .catch((e: unknown) => e)
            .finally(() => stalls.stop());
          if (code === 200) {
            expect(error).toBeInstanceOf(ResponseValidationError);
            expect((error as Error).message).toMatch(/nested deeper than 512 levels/);
          } else expect(error).toBeInstanceOf(InternalServerError);
          // The scan is linear and cheap; a parse of this text would hold the loop for seconds.
          expect(stalls.maxMs()).toBeLessThan(250);
        },
      ),
      { seed: 8, numRuns: 6 },
    );
  });

  it('ordinary bodies, nested as APIs nest them, still parse', async () => {
    const client = new MessagingClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    status = 200;
    body = JSON.stringify({ data: { deep: JSON.parse(nested(100, 'mixed')), pad: 'x'.repeat(100_000) } });
    await expect(client.me()).resolves.toHaveProperty('deep');
  });
});
