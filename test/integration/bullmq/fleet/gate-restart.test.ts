/**
 * Sends waiting at the fleet gate across a datastore restart: the waits are timers in the workers
 * and places in Redis's append-only file, so a Redis killed and started again mid-run leaves the
 * waiting sends to carry on by themselves, each sent once, within the limit.
 */
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { type Fixture, fastWorker, runs, startFixture, text, until } from '../fixture.js';

let f: Fixture;
beforeAll(async () => {
  if (runs) f = await startFixture();
});
afterAll(async () => {
  await f?.close();
});

const ROUTE = { route: 'POST /messages' };

describe.runIf(runs)('the fleet gate across a datastore restart', () => {
  it('sends waiting at the gate when Redis is killed and restarted go on by themselves: each once, no second above the limit', async () => {
    const LIMIT = 10;
    const SENDS = 30;
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    await queue.sendMany(Array.from({ length: SENDS }, (_, i) => ({ id: `g-${i}`, params: text(700 + i) })));
    f.sandbox.requestLog.reset();
    // Two workers of 4 against a limit of 10: most of their jobs wait at the gate at any moment.
    const options = fastWorker(f, name, { concurrency: 4, rateLimit: { requestsPerSecond: LIMIT } });
    const workers = [new MessagingWorker(options), new MessagingWorker(options)];
    const accepted = () => f.sandbox.requestLog.acceptedAt(ROUTE).length;
    try {
      await until(
        () => accepted() >= 12,
        20_000,
        () => `first sends: ${accepted()}`,
      );
      await f.redis.restart(300);
      await until(
        async () => {
          const counts = await queue.counts();
          return counts.sent + counts.failed + counts.unknown >= SENDS;
        },
        35_000,
        () => `after the restart: ${accepted()} accepted`,
      );
      const counts = await queue.counts();
      // A send whose answer the restart cut off is reconciled: found, it is `sent`; never sent twice.
      expect(counts).toMatchObject({ sent: SENDS, failed: 0, unknown: 0 });
      const stored = f.sandbox
        .messages('acme')
        .filter((m) => /^Queued message 7\d\d$/.test(m.content ?? ''))
        .map((m) => m.content);
      expect(stored).toHaveLength(SENDS);
      expect(new Set(stored).size).toBe(SENDS);
      expect(f.sandbox.requestLog.maxInWindow(1000, ROUTE)).toBeLessThanOrEqual(LIMIT);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await queue.close();
    }
  });
});
