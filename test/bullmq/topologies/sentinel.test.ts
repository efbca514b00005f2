/**
 * The fleet behind Sentinel (issue 31): a primary, one replica and three sentinels on loopback,
 * reached with ioredis's sentinel options as the `connection`. The primary is SIGKILLed mid-send;
 * the sentinels promote the replica. Every send must end exactly once, none lost, and a reader of
 * `updates()` carries on by itself across the failover, missing nothing.
 */
import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, uniqueName } from '../../helpers/redis.js';
import { startRedisSentinel, type TestRedisSentinel } from '../../helpers/redis-sentinel.js';
import { text, until } from '../fixture.js';

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

const storedCounts = (contents: string[]) =>
  contents.map((content) => sandbox.messages('acme').filter((log) => log.content === content).length);

describe.runIf(available)('the fleet behind Sentinel', () => {
  it('the primary killed mid-send: every send exactly once, none lost, the limit held, the reader carries on', async () => {
    const name = uniqueName('sentinel');
    const errors: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (line: string) => errors.push(line) };
    const queue = new MessagingQueue({ connection: redis.connection, name, logger });
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
    const contents = Array.from({ length: 60 }, (_, i) => `${name} ${i}`);
    const sentIds = new Set<string>();
    const reader = new AbortController();
    const reading = (async () => {
      for await (const update of queue.updates({ signal: reader.signal }))
        if (update.status === 'sent') sentIds.add(update.id);
    })();
    reading.catch(() => undefined); // awaited below, where its error fails the test
    try {
      await Promise.all(workers.map((worker) => worker.ready()));
      sandbox.faults.add({ kind: 'latency', latencyMs: 150, route: 'POST /messages', ratio: 1 });
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `s-${i}` })));
      await until(
        () => storedCounts(contents).some((n) => n > 0),
        10_000,
        () => 'the first sends',
      );
      const struck = Date.now();
      const failoverMs = await redis.failover();
      await until(
        () => storedCounts(contents).every((n) => n >= 1),
        60_000,
        () => `sent: ${storedCounts(contents).join('')}`,
      );
      const recoveredMs = Date.now() - struck;
      await until(
        () => sentIds.size === contents.length,
        20_000,
        () => `updates read: ${sentIds.size} of ${contents.length}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const counts = storedCounts(contents);
      expect(
        counts.filter((n) => n > 1),
        'sent twice',
      ).toEqual([]);
      expect(
        counts.filter((n) => n === 0),
        'lost',
      ).toEqual([]);
      const busiest = sandbox.requestLog.maxInWindow(1_000, { tenant: 'acme', route: 'POST /messages' });
      expect(busiest).toBeLessThanOrEqual(20);
      reader.abort();
      await reading; // ended by the signal, never by the failover
      console.log(
        `sentinel failover: 60 sent, 0 twice, 0 lost, busiest second ${busiest} of 20; the sentinels promoted the replica ${failoverMs} ms after the kill, all sent ${recoveredMs} ms after it; ${errors.length} error lines logged`,
      );
    } finally {
      reader.abort();
      sandbox.faults.clear();
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
    }
  }, 120_000);
});
