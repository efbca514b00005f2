/**
 * A 429 whose Retry-After asks for a day, or for the year 9999, pauses the queue in its datastore
 * for at most the cap (60 s), on Redis and on PostgreSQL: the pause BullMQ keeps there is read
 * back, and the send that drew it is reported `rate-limited` with the pause's end.
 */
import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAUSE_MS } from '../../../src/bullmq/send/pause.js';
import { uniqueName } from '../../helpers/redis.js';
import { BACKENDS, type BackendFixture, collectUpdates, fastWorker, startBackendFixture, text } from './fixture.js';

describe.each(BACKENDS)('a 429 asking for a pause beyond the cap, on %s', (backend, available) => {
  let f: BackendFixture;
  beforeAll(async () => {
    if (available) f = await startBackendFixture(backend);
  }, 60_000);
  afterAll(async () => {
    await f?.close();
  });

  it.runIf(available).each(['86400', 'Fri, 31 Dec 9999 23:59:59 GMT'])(
    'Retry-After: %s pauses the queue at most 60 s, and says so',
    async (retryAfter) => {
      const { baseUrl, keys } = f.sandbox.tenants['acme'] as (typeof f.sandbox.tenants)[string];
      let refused = 0;
      const client = new MessagingClient({
        baseUrl,
        apiKey: keys.full,
        fetch: async (input, init) => {
          if (init?.method === 'POST' && refused++ === 0) {
            return new Response('{"message":"Too Many Attempts."}', {
              status: 429,
              headers: { 'retry-after': retryAfter, 'content-type': 'application/json' },
            });
          }
          return fetch(input, init);
        },
      });
      const name = uniqueName('pause-cap');
      const queue = new MessagingQueue({ connection: f.connection, name });
      const raw = f.raw(name);
      const updates = queue.updates();
      const worker = new MessagingWorker(fastWorker(f, name, { client, rateLimit: { requestsPerSecond: 5 } }));
      try {
        const before = Date.now();
        await queue.send(text(1), { id: 'held' });
        const [update] = await collectUpdates(updates, (s) => s.length >= 1);
        expect(update).toMatchObject({ id: 'held', status: 'rate-limited', error: { status: 429 } });
        const until = Date.parse(update?.until ?? '');
        expect(until - before).toBeGreaterThan(0);
        expect(until - Date.now()).toBeLessThanOrEqual(MAX_PAUSE_MS);
        // The pause as the datastore keeps it: what every worker of the queue waits out.
        const ttl = await raw.getRateLimitTtl();
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(MAX_PAUSE_MS);
      } finally {
        await worker.close();
        await queue.close();
        await raw.close();
      }
    },
  );
});
