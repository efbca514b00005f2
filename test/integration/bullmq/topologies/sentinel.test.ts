/**
 * The fleet behind Sentinel (issue 31): a primary, one replica and three sentinels on loopback,
 * reached with ioredis's sentinel options as the `connection`. First `waitForReplicas`: a send
 * resolves once the replica holds it, and fails with a typed error while the replica is stopped.
 * Then a failover that drops writes: the replica made to lag for real (stopped, the primary's
 * replication stream filled past the socket buffers), sends going on, the primary SIGKILLed, the
 * replica resumed and promoted. No send may go out twice, every enqueue the failover rolled back
 * must be reported by id (and nothing acknowledged lost without a report), the limit holds, and a
 * reader of `updates()` carries on by itself across the failover.
 */
import { MessagingClient } from 'tenant-messaging';
import { DatastoreError, MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, uniqueName } from '../../../helpers/redis.js';
import { startRedisSentinel, type TestRedisSentinel } from '../../../helpers/redis-sentinel.js';
import { errorLines, readUpdates, recorder, storedCounts, text, until } from '../fixture.js';
import { holds, sendLedger } from './lagging-failover.js';

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
    try {
      await queue.send(text(1), { id: 'w-1' });
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
        async () =>
          await queue.send(text(2), { id: 'w-2' }).then(
            () => true,
            () => false,
          ),
        10_000,
        () => 'the replica caught up',
      );
      expect(await holds(replica, [`bull:${name}:w-2`])).toEqual([true]);
    } finally {
      redis.resume(replica);
      await queue.close();
    }
  }, 30_000);

  it('a failover with a lagging replica: none sent twice, every rolled-back enqueue reported by id, the limit held, the reader carries on', async () => {
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
    try {
      await Promise.all(workers.map((worker) => worker.ready()));
      sandbox.faults.add({ kind: 'latency', latencyMs: 150, route: 'POST /messages', ratio: 1 });
      let replica = 0;
      const { struck, failoverMs } = await ledger.acrossLaggingFailover(
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
      await until(
        () => storedCounts(sandbox, contents).every((n) => n >= 1),
        60_000,
        () => `sent: ${storedCounts(sandbox, contents).join('')}`,
      );
      const recoveredMs = Date.now() - struck;
      await until(
        () => sent.ids.size >= contents.length,
        20_000,
        () => `updates read: ${sent.ids.size} of ${contents.length}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const counts = storedCounts(sandbox, contents);
      expect(
        counts.filter((n) => n > 1),
        'sent twice',
      ).toEqual([]);
      const busiest = sandbox.requestLog.maxInWindow(1_000, { tenant: 'acme', route: 'POST /messages' });
      expect(busiest).toBeLessThanOrEqual(20);
      await sent.stop(); // ended by the signal, never by the failover
      console.log(
        `sentinel failover, replica lagging: ${contents.length} sent, ${counts.filter((n) => n > 1).length} twice, ${lost.length} enqueues rolled back, ${ledger.reported.size} reported by id (and sent once re-enqueued), busiest second ${busiest} of 20; the sentinels promoted the replica ${failoverMs} ms after the kill, all sent ${recoveredMs} ms after it; ${errorLines(lines).length} error lines logged`,
      );
    } finally {
      sent.abort();
      sandbox.faults.clear();
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
      await readerQueue.close();
    }
  }, 120_000);
});
