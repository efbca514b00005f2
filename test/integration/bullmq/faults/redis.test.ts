/**
 * The fleet against a Redis that cannot keep what it acknowledges, on real servers: no
 * append-only file, an eviction policy, or full. It is refused, or each refused send is a
 * DatastoreError: never lost in silence, nothing half-stored. Restarts and stalls are
 * redis-restarts.test.ts.
 */
import { DatastoreError, MessagingQueue } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { recorder, storedCounts, text, until } from '../fixture.js';
import { available, useRedisFaults } from './redis-fixture.js';

const fx = useRedisFaults();
const { redis, worker } = fx;

describe.runIf(available)('a Redis that cannot keep what it acknowledges is refused', () => {
  it('without an append-only file: the queue and the worker refuse it with a DatastoreError naming appendonly; allowUnsafeDatastore warns instead', async () => {
    const server = await redis({ persistence: 'none' });
    const name = uniqueName('volatile');
    const queue = new MessagingQueue({ connection: server.connection, name });
    const { lines, logger } = recorder();
    const refusedWorker = worker(server, name, { logger });
    try {
      const refused = await queue.send(text(1), { id: 'v-1' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DatastoreError);
      expect(refused).toMatchObject({ reason: 'not-durable' });
      expect((refused as Error).message).toMatch(
        /appendonly no[\s\S]*--appendonly yes[\s\S]*allowUnsafeDatastore: true/,
      );
      await expect(refusedWorker.ready()).rejects.toMatchObject({ reason: 'not-durable' });
      expect(lines.some((line) => line.level === 'error' && /refused its datastore/.test(line.message))).toBe(true);

      // Opted in (development): the send is stored and sent, with a warning; the refused worker took nothing.
      const allowed = recorder();
      const devQueue = new MessagingQueue({
        connection: server.connection,
        name,
        allowUnsafeDatastore: true,
        logger: allowed.logger,
      });
      const devWorker = worker(server, name, { allowUnsafeDatastore: true });
      try {
        await devQueue.send({ ...text(1), content: `${name} dev` }, { id: 'v-1' });
        expect(allowed.lines.map((line) => line.message)).toEqual([
          expect.stringMatching(/^allowUnsafeDatastore: .*appendonly no/),
        ]);
        await devWorker.ready();
        await until(
          () => storedCounts(fx.sandbox, [`${name} dev`])[0] === 1,
          10_000,
          () => 'the opted-in send',
        );
      } finally {
        await devWorker.close();
        await devQueue.close();
      }
    } finally {
      await refusedWorker.close();
      await queue.close();
    }
  });

  it('with an eviction policy: refused with a DatastoreError naming maxmemory-policy', async () => {
    const server = await redis({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru'] });
    const queue = new MessagingQueue({ connection: server.connection, name: uniqueName('evicting') });
    try {
      const refused = await queue.counts().catch((e: unknown) => e);
      expect(refused).toMatchObject({ reason: 'evicts' });
      expect((refused as Error).message).toMatch(/maxmemory-policy is 'allkeys-lru'[\s\S]*noeviction/);
    } finally {
      await queue.close();
    }
  });

  it('full (maxmemory under noeviction): each refused send is a DatastoreError (full), nothing half-stored, and the queue works again once there is room', async () => {
    const server = await redis({ args: ['--maxmemory', '3mb', '--maxmemory-policy', 'noeviction'] });
    const name = uniqueName('full');
    const queue = new MessagingQueue({ connection: server.connection, name });
    const big = 'x'.repeat(4_000);
    try {
      let accepted = 0;
      let refused: unknown;
      for (let i = 0; i < 2_000 && refused === undefined; i++) {
        await queue.send({ ...text(i), content: `${i} ${big}` }, { id: `full-${i}` }).then(
          () => accepted++,
          (error: unknown) => {
            refused = error;
          },
        );
      }
      expect(refused).toBeInstanceOf(DatastoreError);
      expect(refused).toMatchObject({ reason: 'full' });
      expect((refused as Error).message).toMatch(/full[\s\S]*Nothing was stored/);
      expect(accepted).toBeGreaterThan(0);
      expect((await queue.counts()).waiting).toBe(accepted);
      // Room again: the workers drained it (here: the limit raised).
      const raw = new (await import('ioredis')).Redis({ port: server.port, host: '127.0.0.1' });
      await raw.config('SET', 'maxmemory', '0');
      raw.disconnect();
      await queue.send(text(0), { id: 'after-full' });
      expect((await queue.counts()).waiting).toBe(accepted + 1);
    } finally {
      await queue.close();
    }
  }, 60_000);
});
