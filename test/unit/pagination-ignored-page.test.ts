/**
 * Servers that ignore the `page` parameter, in every paging shape the SDK reads: walking them with
 * `for await` must stop after the repeated page with ResponseValidationError, never loop.
 */
import fc from 'fast-check';
import { MessagingClient, ResponseValidationError } from 'tenant-messaging';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeService, fakeService, json, messageLog } from '../helpers/fake-service.js';

type Body = (requestedPage: number) => unknown;
// A fake service in process, on fake timers: the walk's stop does not depend on the transport.
let server: FakeService;
let answer: Body = () => [];

beforeAll(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 28, 9) });
  server = fakeService((req) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1);
    return json(200, answer(page));
  });
});
afterAll(() => {
  vi.useRealTimers();
});

/** The paging shapes the SDK reads, each answering the same items whatever page is asked for. */
const ignoringServer = fc.record({
  ids: fc.uniqueArray(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 6 }),
  /** Where the next page is announced: Laravel's `links.next` or the plain paginator's `next_page_url`. */
  shape: fc.constantFrom('links', 'next_page_url'),
  /** The next page: one past the page asked for, or always 2 (built from the page really served). */
  next: fc.constantFrom('asked + 1', 'always 2'),
  /** Counters beside the links: none, some without `current_page`, or page 1 of many (the page ignored). */
  meta: fc.constantFrom(undefined, { per_page: 15, total: 10_000 }, { current_page: 1, last_page: 500 }),
  absolute: fc.boolean(),
});

type IgnoringServer = typeof ignoringServer extends fc.Arbitrary<infer T> ? T : never;

function bodyOf({ ids, shape, next, meta, absolute }: IgnoringServer): Body {
  const data = ids.map((id) => messageLog({ id }));
  const url = (asked: number) =>
    `${absolute ? 'https://service.example' : ''}/api/v1/messages?page=${next === 'asked + 1' ? asked + 1 : 2}`;
  return shape === 'links'
    ? (asked) => ({ data, links: { next: url(asked) }, ...(meta ? { meta } : {}) })
    : (asked) => ({ data, next_page_url: url(asked), ...meta });
}

describe('a service that ignores the page parameter', () => {
  it('is walked to the repeated page and no further, whatever the page size and link shape', async () => {
    await fc.assert(
      fc.asyncProperty(ignoringServer, async (shape) => {
        const { ids } = shape;
        answer = bodyOf(shape);
        server.requests.length = 0;
        const client = new MessagingClient({ baseUrl: 'https://api.example.test', apiKey: 'k', fetch: server.fetch });
        const seen: number[] = [];
        const error = await (async () => {
          // The bound only makes an endless walk fail fast instead of timing out.
          for await (const log of client.messages.list()) if (seen.push(log.id) > 3 * ids.length) break;
        })().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect(server.requests).toHaveLength(2);
        expect(seen).toEqual(ids);
      }),
      { seed: 1313, numRuns: 60 },
    );
  });
});
