/**
 * The fleet behind Sentinel (issue 31): a primary, one replica and three sentinels on loopback,
 * reached with ioredis's sentinel options as the `connection`. First `waitForReplicas`: a send
 * resolves once the replica holds it, and fails with a typed error while the replica is stopped.
 * Then a failover that drops writes: the replica made to lag for real (stopped, the primary's
 * replication stream filled past the socket buffers), sends going on, the primary SIGKILLed, the
 * replica resumed and promoted. No send may go out twice, every enqueue the failover rolled back
 * must be reported by id (and nothing acknowledged lost without a report), each send ends sent or
 * (its mark promoted while its give-back was rolled back) `unknown` and never sent, the limit
 * holds, and a reader of `updates()` carries on by itself across the failover.
 */
import { Queue } from 'bullmq';
import { MessagingClient } from 'tenant-messaging';
import { DatastoreError, MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, uniqueName } from '../../../helpers/redis.js';
import { startRedisSentinel, type TestRedisSentinel } from '../../../helpers/redis-sentinel.js';
import { untilDrained } from '../faults/drained.js';
import { readUpdates, recorder, storedCounts, text, until } from '../fixture.js';
import { holds, sendLedger, untilEachSettled } from './lagging-failover.js';

const available = redisAvailable();
let redis: TestRedisSentinel;
let sandbox: RunningSandbox<'acme' | 'globex'>;
let client: MessagingClient;

beforeAll(async () => {
  if (!available) return;
  redis = await startRedisSentinel();
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  await redis?.stop();
});

describe.runIf(available)('the fleet behind Sentinel', () => {
  it('waitForReplicas: a send resolves once the replica holds it; with the replica stopped it fails, typed, saying it is stored', async () => {
    const name = uniqueName('sentinel-wait');
    const queue = new MessagingQueue({
      connection: redis.connection,
      name,
      waitForReplicas: { replicas: 1, timeout: 500 },
    });
    const replica = await redis.replicaPort();
    // A send that did not wait long enough may be made again with its id (it is stored once).
    const sent = (id: string, i: number) =>
      queue.send(text(i), { id }).then(
        () => true,
        () => false,
      );
    try {
      // Once the replica acknowledges within the timeout: a busy machine may hold its acknowledgement past it.
      await until(
        () => sent('w-1', 1),
        20_000,
        () => 'a first send acknowledged by the replica',
      );
      expect(await holds(replica, [`bull:${name}:w-1`])).toEqual([true]);
      redis.pause(replica);
      let failure: unknown;
      try {
        await queue.send(text(2), { id: 'w-2' });
      } catch (error) {
        failure = error;
      } finally {
        redis.resume(replica);
      }
      expect(failure).toBeInstanceOf(DatastoreError);
      expect(failure).toMatchObject({ reason: 'not-replicated', ids: ['w-2'] });
      expect((failure as Error).message).toMatch(/ARE stored on the primary/);
      // The same id again is safe: stored once, and now confirmed.
      await until(
        () => sent('w-2', 2),
        20_000,
        () => 'the replica caught up',
      );
      expect(await holds(replica, [`bull:${name}:w-2`])).toEqual([true]);
    } finally {
      redis.resume(replica);
      await queue.close();
    }
  }, 60_000);

  it('a failover with a lagging replica: none sent twice, every rolled-back enqueue reported by id, each sent or unknown, the limit held, the reader carries on', async () => {
    const name = uniqueName('sentinel');
    const { lines, logger } = recorder();
    const queue = new MessagingQueue({ connection: redis.connection, name, logger });
    // Another process's reader: it enqueued nothing, so it has nothing rolled back to hear of.
    const readerQueue = new MessagingQueue({ connection: redis.connection, name });
    const options = {
      connection: redis.connection,
      name,
      client,
      concurrency: 4,
      lockDuration: 5_000,
      stalledInterval: 2_000,
      rateLimit: { requestsPerSecond: 20 },
      logger,
    };
    const workers = [new MessagingWorker(options), new MessagingWorker(options)];
    const ledger = sendLedger(queue, name);
    const sent = readUpdates(readerQueue);
    const unknown = readUpdates(readerQueue, ['unknown']);
    try {
      await Promise.all(workers.map((worker) => worker.ready()));
      sandbox.faults.add({ kind: 'latency', latencyMs: 150, route: 'POST /messages', ratio: 1 });
      let replica = 0;
      await ledger.acrossLaggingFailover(
        (content) => storedCounts(sandbox, [content])[0] as number,
        async () => {
          replica = await redis.lagReplica();
        },
        () => redis.failover({ afterKill: () => redis.resume(replica) }),
      );
      const lost = await ledger.rolledBack(await redis.primaryPort(), (id) => `bull:${name}:${id}`);
      await ledger.expectReported(lost, lines);
      for (const id of ledger.reported) await ledger.send(id);
      const contents = ledger.contents();
      const ids = contents.map(ledger.idOf);
      // Each sent, or (a mark the promoted replica holds, its give-back rolled back) reconciled:
      // no log matches, so it ends `unknown`, reported and never sent blindly.
      const settled = () => storedCounts(sandbox, contents).map((n, i) => n >= 1 || unknown.ids.has(ids[i] as string));
      await untilEachSettled(ids, settled, () => new Queue(name, { connection: redis.connection }), lines);
      // Nothing left to run: no POST can come after the count.
      await untilDrained(queue);
      await Promise.all(workers.map((worker) => worker.close()));
      const counts = storedCounts(sandbox, contents);
      expect(
        counts.filter((n) => n > 1),
        'sent twice',
      ).toEqual([]);
      expect(
        ids.filter((id, i) => unknown.ids.has(id) && (counts[i] as number) > 0),
        'an unknown one was sent',
      ).toEqual([]);
      // The reader carried on across the failover: it read the `sent` of every send stored.
      await until(
        () => ids.every((id, i) => (counts[i] as number) === 0 || sent.ids.has(id)),
        30_000,
        () =>
          `sent updates missing: ${ids.filter((id, i) => (counts[i] as number) > 0 && !sent.ids.has(id)).join(',')}`,
      );
      const busiest = sandbox.requestLog.maxInWindow(1_000, { tenant: 'acme', route: 'POST /messages' });
      expect(busiest).toBeLessThanOrEqual(20);
      await sent.stop(); // ended by the signal, never by the failover
      await unknown.stop();
    } finally {
      sent.abort();
      unknown.abort();
      sandbox.faults.clear();
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
      await readerQueue.close();
    }
  }, 150_000);
});
