/**
 * tenant-messaging/bullmq against a real Redis and the sandbox: enqueue checks, idempotent ids,
 * a worker sends and updates() reports it, counts, retention, graceful close.
 */
import { Readable } from 'node:stream';
import { Queue } from 'bullmq';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { mediaFromPath, type SendMessageParams, ValidationError } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker, RETENTION_DEFAULTS } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../helpers/redis.js';
import {
  collectUpdates,
  type Fixture,
  fastWorker,
  finishedJob,
  runs,
  SENDER,
  startFixture,
  text,
  until,
} from './fixture.js';

let f: Fixture;
beforeAll(async () => {
  if (runs) f = await startFixture();
});
afterAll(async () => {
  await f?.close();
});

describe.runIf(runs)('MessagingQueue: enqueue', () => {
  it('checks parameters as messages.send does, before anything is stored', async () => {
    const queue = new MessagingQueue({ connection: f.redis.connection, name: uniqueName() });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.record({ to_phone: fc.string(), type: fc.constant('text') }),
            fc.record({
              sender_phone: fc.constant(SENDER),
              to_phone: fc.constant('+15550000002'),
              type: fc.constant('text'),
              content: fc.integer(),
            }),
            fc.record({
              sender_phone: fc.constant(SENDER),
              to_phone: fc.constant('+15550000002'),
              type: fc.constantFrom('image', 'voice'),
              content: fc.string(),
            }),
            fc.constantFrom(null, 42, 'text', [], undefined),
          ),
          async (params) => {
            await expect(queue.send(params as never)).rejects.toBeInstanceOf(ValidationError);
          },
        ),
        { seed: 13, numRuns: 40 },
      );
      expect((await queue.counts()).waiting).toBe(0);
    } finally {
      await queue.close();
    }
  });

  it('refuses media that cannot be stored (a stream, over 1 MB) and says why; stores a path or bytes', async () => {
    const queue = new MessagingQueue({ connection: f.redis.connection, name: uniqueName() });
    const media = (m: unknown) =>
      ({ sender_phone: SENDER, to_phone: '+15550000002', type: 'image', content: 'c', media: m }) as never;
    try {
      const stream = queue.send(media({ data: Readable.from([Buffer.from('x')]), filename: 'a.png' }));
      await expect(stream).rejects.toThrow(/stream .*cannot be stored in the queue/);
      await expect(queue.send(media({ data: Buffer.alloc(1024 * 1024 + 1), filename: 'a.png' }))).rejects.toThrow(
        /at most 1048576 bytes .*mediaFromPath/,
      );
      await queue.send(media(mediaFromPath('/srv/shared/a.png')), { id: 'path-media' });
      await queue.send(media({ data: new Uint8Array([1, 2, 3]), filename: 'b.png' }), { id: 'byte-media' });
      const raw = new Queue(queue.name, { connection: f.redis.connection });
      expect((await raw.getJob('path-media'))?.data.params.media).toEqual({
        path: '/srv/shared/a.png',
        filename: 'a.png',
        contentType: 'image/png',
      });
      expect((await raw.getJob('byte-media'))?.data.params.media).toMatchObject({ base64: 'AQID', filename: 'b.png' });
      await raw.close();
    } finally {
      await queue.close();
    }
  });

  it('the same id enqueued twice is stored once; bad ids are a ValidationError', async () => {
    const queue = new MessagingQueue({ connection: f.redis.connection, name: uniqueName() });
    try {
      expect(await queue.send(text(1), { id: 'order-1' })).toBe('order-1');
      expect(await queue.send(text(1), { id: 'order-1' })).toBe('order-1');
      expect(
        await queue.sendMany([
          { params: text(1), id: 'order-1' },
          { params: text(2), id: 'order-2' },
        ]),
      ).toEqual(['order-1', 'order-2']);
      expect((await queue.counts()).waiting).toBe(2);
      for (const id of ['', '12', 'a:b', 'x'.repeat(257)]) {
        await expect(queue.send(text(1), { id })).rejects.toBeInstanceOf(ValidationError);
      }
      await expect(queue.sendMany([text(3), { params: { type: 'text' } as never }])).rejects.toThrow(
        /item 1 of sendMany/,
      );
    } finally {
      await queue.close();
    }
  });

  it('applies retention as BullMQ removeOnComplete / removeOnFail ages', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({
      connection: f.redis.connection,
      name,
      retention: { sentSeconds: 60, unknownSeconds: 30 * 86_400 },
    });
    const raw = new Queue(name, { connection: f.redis.connection });
    try {
      await queue.send(text(1), { id: 'r1' });
      const job = await raw.getJob('r1');
      expect(job?.opts.removeOnComplete).toEqual({ age: 60 });
      expect(job?.opts.removeOnFail).toEqual({ age: 30 * 86_400 });
      expect(RETENTION_DEFAULTS).toEqual({ sentSeconds: 86_400, failedSeconds: 604_800, unknownSeconds: 604_800 });
      expect(
        () => new MessagingQueue({ connection: f.redis.connection, name, retention: { sentSeconds: -1 } }),
      ).toThrow(ValidationError);
      expect(() => new MessagingWorker(fastWorker(f, name, { retention: { failedSeconds: Number.NaN } }))).toThrow(
        /Invalid MessagingWorker options[\s\S]*retention\.failedSeconds/,
      );
      expect(JSON.stringify(job?.data)).not.toContain(f.sandbox.tenants['acme']?.keys.full);
    } finally {
      await raw.close();
      await queue.close();
    }
  });
});

describe.runIf(runs)('MessagingQueue: connections', () => {
  it('close() also closes updates() readers that were never iterated: no connection is left behind', async () => {
    const admin = new Redis(f.redis.connection);
    const clients = async () =>
      String(await admin.call('CLIENT', 'LIST'))
        .trim()
        .split('\n').length;
    const before = await clients();
    const queue = new MessagingQueue({ connection: f.redis.connection, name: uniqueName() });
    queue.updates();
    queue.updates({ from: 'start' });
    await queue.counts();
    let now = before;
    await until(
      async () => {
        now = await clients();
        return now > before;
      },
      30_000,
      () => `the queue's connections to open (${now} clients, ${before} before)`,
    );
    await queue.close();
    // Closed: back to the clients there were before (a reader left open would keep its own).
    await until(
      async () => {
        now = await clients();
        return now === before;
      },
      30_000,
      () => `the connections to close (${now} clients, ${before} before)`,
    );
    expect(await clients()).toBe(before);
    admin.disconnect();
  });
});

describe.runIf(runs)('MessagingWorker: sending', () => {
  it('a worker sends each message once and updates() reports sent with the log', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    const updates = queue.updates();
    const ids = await queue.sendMany(Array.from({ length: 20 }, (_, i) => text(i)));
    const stored = f.sandbox.counters.sendsStored;
    const worker = new MessagingWorker(fastWorker(f, name, { concurrency: 4 }));
    try {
      const seen = await collectUpdates(updates, (s) => s.length >= 20);
      expect(seen.map((u) => u.status)).toEqual(Array(20).fill('sent'));
      expect(new Set(seen.map((u) => u.id))).toEqual(new Set(ids));
      expect(seen.every((u) => typeof u.log?.id === 'number' && typeof u.eventId === 'string')).toBe(true);
      expect(f.sandbox.counters.sendsStored - stored).toBe(20);
      const raw = new Queue(name, { connection: f.redis.connection });
      await Promise.all(ids.map((id) => finishedJob(raw, id)));
      await raw.close();
      expect(await queue.counts()).toEqual({ waiting: 0, active: 0, sent: 20, failed: 0, unknown: 0, tracking: 0 });
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('a 422 ends failed with the typed error fields, never retried', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    const updates = queue.updates();
    // An unknown sender phone: the service refuses it with a 422.
    await queue.send({ ...text(1), sender_phone: '+15559999999' } as SendMessageParams, { id: 'refused' });
    const requests = f.sandbox.counters.requests['POST /messages'] ?? 0;
    const worker = new MessagingWorker(fastWorker(f, name));
    try {
      const [update] = await collectUpdates(updates, (s) => s.length >= 1);
      expect(update).toMatchObject({
        id: 'refused',
        status: 'failed',
        error: { name: 'UnprocessableEntityError', status: 422 },
      });
      expect(update?.error?.errors).toBeTypeOf('object');
      // Finished (failed for good): no attempt can follow, so the count of requests is final.
      const raw = new Queue(name, { connection: f.redis.connection });
      const job = await finishedJob(raw, 'refused').finally(() => raw.close());
      expect(job.attemptsMade).toBe(1);
      expect((f.sandbox.counters.requests['POST /messages'] ?? 0) - requests).toBe(1);
      expect(await queue.counts()).toMatchObject({ failed: 1, unknown: 0, sent: 0 });
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it('close() lets the sends in progress finish, and starts nothing new', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    // Every send held (a latency fault without `ratio` or `times` holds only the first one).
    f.sandbox.faults.add({ kind: 'latency', latencyMs: 300, route: 'sendMessage', ratio: 1 });
    await queue.sendMany(Array.from({ length: 10 }, (_, i) => text(i)));
    const worker = new MessagingWorker(fastWorker(f, name, { concurrency: 2 }));
    try {
      await until(
        async () => (await queue.counts()).active >= 2,
        30_000,
        () => 'two sends in progress',
      );
      await worker.close();
      const counts = await queue.counts();
      expect(counts.active).toBe(0);
      expect(counts.sent).toBeGreaterThanOrEqual(2);
      expect(counts.sent + counts.waiting).toBe(10);
      expect(counts.sent).toBeLessThan(10);
    } finally {
      f.sandbox.faults.clear();
      await queue.close();
    }
  });
});
