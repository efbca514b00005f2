/**
 * What a worker does after a crash, for real (Redis, a worker, the sandbox): the reconcile walk
 * reads as many pages as the window holds (the old walk stopped at 10), one per job start, so its
 * reads stay within the fleet's limit; a walk stored by the previous release resumes; and a crash
 * between `accepted` and the `sent` update publishes `sent` again instead of losing it.
 */
import { Queue } from 'bullmq';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { collectUpdates, type Fixture, fastWorker, finishedJob, runs, startFixture, text } from '../fixture.js';

let f: Fixture;
beforeAll(async () => {
  if (runs) f = await startFixture();
});
afterAll(async () => {
  await f?.close();
});

/** A queue, its updates from now, and a raw BullMQ view of it. */
function setUp() {
  const name = uniqueName();
  const queue = new MessagingQueue({ connection: f.redis.connection, name });
  const raw = new Queue(name, { connection: f.redis.connection });
  return { name, queue, raw, updates: queue.updates(), close: () => Promise.all([raw.close(), queue.close()]) };
}

/** Leaves job `id` as a worker killed at `phase` would: the patch written, the job waiting. */
async function crashedAt(raw: Queue, id: string, patch: Record<string, unknown>) {
  const job = await raw.getJob(id);
  await job?.updateData({ ...job.data, ...patch });
}

describe.runIf(runs)('after a crash', () => {
  it('a re-run finds a send 30 pages back, reading one page per job start within the limit', async () => {
    const t = setUp();
    const LIMIT = 20;
    try {
      // The killed worker's POST began 25 s ago and reached the service; 450 sends (30 pages) were
      // stored after it (fewer than the 500 the limit allows in 25 s: the walk's cap derives from it).
      const startedAt = Date.now() - 25_000;
      await f.client.messages.send(text(1));
      for (let i = 0; i < 450; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, j) => f.client.messages.send(text(1_000 + i + j))));
      }
      await t.queue.send(text(1), { id: 'deep' });
      await crashedAt(t.raw, 'deep', { phase: 'in-flight', startedAt });
      f.sandbox.requestLog.reset();
      const worker = new MessagingWorker(
        fastWorker(f, t.name, { rateLimit: { requestsPerSecond: LIMIT }, clockSkewMs: 1_000 }),
      );
      try {
        const [update] = await collectUpdates(t.updates, (s) => s.length >= 1, 20_000);
        expect(update).toMatchObject({ id: 'deep', status: 'sent', log: { content: 'Queued message 1' } });
        const job = await finishedJob(t.raw, 'deep');
        expect(job.data.reconcile).toBeUndefined();
        // The sender number (one request), then every page from the newest to the one that holds it.
        const reads = f.sandbox.requestLog.acceptedAt({ route: 'GET /messages' }).length;
        expect(reads).toBeGreaterThanOrEqual(31);
        expect(job.attemptsStarted).toBeGreaterThanOrEqual(reads + 1);
        // Every request of the walk was a job start the limiter counted.
        expect(f.sandbox.requestLog.maxInWindow(1_000)).toBeLessThanOrEqual(LIMIT);
        expect(f.sandbox.messages('acme').filter((log) => log.content === 'Queued message 1')).toHaveLength(1);
      } finally {
        await worker.close();
      }
    } finally {
      await t.close();
    }
  }, 30_000);

  it('a walk stored by the previous release resumes where it was (no rate limit: its caps came back from JSON as null)', async () => {
    const t = setUp();
    try {
      const startedAt = Date.now();
      await f.client.messages.send(text(4));
      for (let i = 0; i < 60; i += 20) {
        await Promise.all(Array.from({ length: 20 }, (_, j) => f.client.messages.send(text(4_000 + i + j))));
      }
      const senderId = (await f.client.senderNumbers.list()).find((n) => n['phone'] === text(4).sender_phone)?.['id'];
      const total = f.sandbox.messages('acme').length;
      const last = Math.ceil(total / 15);
      await t.queue.send(text(4), { id: 'old-walk' });
      // Pages 1 and 2 read (the send is on page 5), as the previous release stored the walk: its
      // unbounded rate cap (Infinity) and floor (-Infinity) are null once JSON has held them.
      const progress = {
        windowStart: startedAt,
        senderId,
        page: 3,
        order: 'newest-first',
        perPage: 15,
        lowest: total - 30,
        floor: null,
        wasted: 0,
        caps: { newer: null, reads: 2 * last + 2, wasted: last + 2 },
        reads: 2,
        logs: 30,
        certain: [],
        uncertain: [],
      };
      await crashedAt(t.raw, 'old-walk', { phase: 'in-flight', startedAt, reconcile: progress });
      const worker = new MessagingWorker(fastWorker(f, t.name));
      try {
        const [update] = await collectUpdates(t.updates, (s) => s.length >= 1, 20_000);
        expect(update).toMatchObject({ id: 'old-walk', status: 'sent', log: { content: 'Queued message 4' } });
        expect((await finishedJob(t.raw, 'old-walk')).data.reconcile).toBeUndefined();
        expect(f.sandbox.messages('acme').filter((log) => log.content === 'Queued message 4')).toHaveLength(1);
      } finally {
        await worker.close();
      }
    } finally {
      await t.close();
    }
  }, 30_000);

  it('a re-run in `sent` before its update went out publishes `sent` again, with the log, then tracks it', async () => {
    const t = setUp();
    try {
      const log = await f.client.messages.send(text(2, SANDBOX_PHONES.neverReads));
      await t.queue.send(text(2, SANDBOX_PHONES.neverReads), { id: 'accepted' });
      // Killed between recording `accepted` (the log id) and publishing `sent`.
      await crashedAt(t.raw, 'accepted', { phase: 'sent', logId: log.id, startedAt: Date.now() });
      // Killed after tracking ended (`reached`) but before the job finished: nothing to publish again.
      await t.queue.send(text(3), { id: 'tracked' });
      await crashedAt(t.raw, 'tracked', {
        phase: 'sent',
        logId: log.id,
        track: { deadline: Date.now(), unchanged: 0, polls: 1, status: 'delivered' },
      });
      const worker = new MessagingWorker(
        fastWorker(f, t.name, { trackDelivery: { until: 'delivered', interval: 50, timeout: 10_000 } }),
      );
      try {
        const seen = await collectUpdates(t.updates, (s) => s.some((u) => u.status === 'delivered'));
        expect(seen.map((u) => [u.id, u.status])).toEqual([
          ['accepted', 'sent'],
          ['accepted', 'delivered'],
        ]);
        expect(seen[0]?.log?.id).toBe(log.id);
        expect((await finishedJob(t.raw, 'tracked')).returnvalue).toMatchObject({ status: 'sent', logId: log.id });
        // Nothing was sent again: one stored log for the content.
        expect(f.sandbox.messages('acme').filter((l) => l.content === 'Queued message 2')).toHaveLength(1);
      } finally {
        await worker.close();
      }
    } finally {
      await t.close();
    }
  });
});
