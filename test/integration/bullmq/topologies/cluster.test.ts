/**
 * The fleet on a Redis Cluster of 3 masters (issue 31): with a hash-tagged `prefix`, every key of
 * a queue (BullMQ's and the SDK's: the fleet gate's places, the update log, the marker, the relay's
 * state) lives in one slot, so every script runs. Without one, the set-up is refused before any
 * I/O with an error that names the fix, instead of failing every call with CROSSSLOT.
 */
import { execFileSync } from 'node:child_process';
import { Cluster } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { MessagingClient, ValidationError } from 'tenant-messaging';
import { DatastoreError, MessagingQueue, MessagingWorker, WebhookRelay } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import type { WebhookEvent } from 'tenant-messaging/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, uniqueName } from '../../../helpers/redis.js';
import { startRedisCluster, type TestRedisCluster } from '../../../helpers/redis-cluster.js';
import { startServer } from '../../../helpers/server.js';
import { untilDrained } from '../faults/drained.js';
import { expectStoredOnce, readUpdates, storedCounts, text, until } from '../fixture.js';

const available = redisAvailable();
let cluster: TestRedisCluster;
let sandbox: RunningSandbox<'acme' | 'globex'>;
let client: MessagingClient;
const connections: Cluster[] = [];

/** A Cluster connection as BullMQ wants it (no per-request retry limit: workers block). */
function connect(): Cluster {
  const connection = new Cluster(cluster?.nodes ?? [{ host: '127.0.0.1', port: 1 }], {
    lazyConnect: true,
    redisOptions: { maxRetriesPerRequest: null },
  });
  connection.on('error', () => undefined); // reconnection is ioredis's; the SDK reports through its own paths
  connections.push(connection);
  return connection;
}

beforeAll(async () => {
  if (!available) return;
  cluster = await startRedisCluster(3);
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
}, 60_000);
afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await sandbox?.close();
  await cluster?.stop();
});

describe('a Redis Cluster connection without a hash-tagged prefix', () => {
  it('is refused before any I/O by the queue, the worker and the relay, naming the fix', () => {
    const connection = connect();
    const name = 'sms';
    const made = [
      () => new MessagingQueue({ connection, name }),
      () => new MessagingQueue({ connection, name, prefix: 'sms' }),
      () =>
        new MessagingWorker({
          connection,
          name,
          client: new MessagingClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }),
        }),
      () => new WebhookRelay({ connection, name, endpoints: [] }),
    ];
    for (const make of made) {
      let error: unknown;
      try {
        make();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect(String((error as Error).message)).toMatch(/hash tag, e\.g\. prefix: '\{sms\}'/);
    }
    expect(connection.status).toBe('wait'); // never connected
  });

  it('a prefix that could not be a key part is refused', () => {
    for (const prefix of ['', 'a b', 'a:b', 'x'.repeat(101), 7]) {
      expect(() => new MessagingQueue({ connection: connect(), name: 'sms', prefix: prefix as string })).toThrow(
        /prefix: must be 1 to 100 characters/,
      );
    }
  });
});

describe.runIf(available)('the fleet on a 3-master Redis Cluster, prefix {sms}', () => {
  it('every master is checked: one without its append-only file makes the queue refuse the cluster', async () => {
    const last = cluster.nodes.at(-1) as { port: number };
    const config = (value: string) =>
      execFileSync('redis-cli', ['-p', String(last.port), 'CONFIG', 'SET', 'appendonly', value]);
    config('no');
    const queue = new MessagingQueue({ connection: connect(), name: uniqueName('cluster-unsafe'), prefix: '{unsafe}' });
    try {
      const error = await queue.send(text(1)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DatastoreError);
      expect((error as DatastoreError).reason).toBe('not-durable');
      expect((error as Error).message).toMatch(/appendonly/);
    } finally {
      config('yes');
      await queue.close();
    }
  });

  it('two workers send every message exactly once within the limit, updates() reports each, and a relay delivers each as a webhook', async () => {
    const name = uniqueName('cluster');
    const prefix = '{sms}';
    const queue = new MessagingQueue({ connection: connect(), name, prefix });
    // The relay's own keys (its position, its deliveries queue, its 410 marks) in the same slot.
    const secret = `whsec_${Buffer.from(new Uint8Array(32).fill(9)).toString('base64')}`;
    const verifier = new Webhook(secret);
    const webhooks = new Set<string>();
    let refused = 0;
    const endpoint = await startServer((req, res) => {
      try {
        const event = verifier.verify(req.body.toString(), req.headers as Record<string, string>) as WebhookEvent;
        if (event.data.status === 'sent') webhooks.add(event.data.id);
        res.writeHead(204).end();
      } catch {
        refused++;
        res.writeHead(400).end();
      }
    });
    const relay = new WebhookRelay({
      connection: connect(),
      name,
      prefix,
      endpoints: [{ url: `${endpoint.url}/hooks`, secret, events: ['message.sent'] }],
    });
    const options = {
      connection: connect(),
      name,
      prefix,
      client,
      concurrency: 4,
      rateLimit: { requestsPerSecond: 20 },
      trackDelivery: { until: 'delivered' as const, interval: 100 },
    };
    const workers = [new MessagingWorker(options), new MessagingWorker({ ...options, connection: connect() })];
    const contents = Array.from({ length: 40 }, (_, i) => `${name} ${i}`);
    const delivered = readUpdates(queue, ['delivered', 'read']);
    try {
      await Promise.all(workers.map((worker) => worker.ready()));
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `c-${i}` })));
      await until(
        () => storedCounts(sandbox, contents).every((n) => n >= 1),
        30_000,
        () => `sent: ${storedCounts(sandbox, contents).join('')}`,
      );
      await until(
        () => delivered.ids.size === contents.length,
        20_000,
        () => `delivered updates: ${delivered.ids.size}`,
      );
      await until(
        () => webhooks.size === contents.length,
        20_000,
        () => `'sent' webhooks: ${webhooks.size}`,
      );
      expect(refused).toBe(0);
      expect(storedCounts(sandbox, contents).filter((n) => n !== 1)).toEqual([]);
      // A job publishes its last update, then completes: on a busy machine the second can lag.
      await untilDrained(queue);
      // The service's busiest sliding second for the key: the fleet gate held the limit.
      const busiest = sandbox.requestLog.maxInWindow(1_000, { tenant: 'acme' });
      expect(busiest).toBeLessThanOrEqual(20);
      await delivered.stop();
    } finally {
      delivered.abort();
      await relay.close();
      await endpoint.close();
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
    }
  }, 60_000);

  it("the master holding the queue's slot killed mid-send and restarted with its AOF: every send once, none lost", async () => {
    const name = uniqueName('cluster-restart');
    const prefix = '{sms-restart}';
    const owner = await cluster.ownerOf(prefix);
    const queue = new MessagingQueue({ connection: connect(), name, prefix });
    const options = {
      connection: connect(),
      name,
      prefix,
      client,
      concurrency: 4,
      lockDuration: 5_000,
      stalledInterval: 2_000,
    };
    const workers = [new MessagingWorker(options), new MessagingWorker({ ...options, connection: connect() })];
    const contents = Array.from({ length: 40 }, (_, i) => `${name} ${i}`);
    try {
      await Promise.all(workers.map((worker) => worker.ready()));
      sandbox.faults.add({ kind: 'latency', latencyMs: 150, route: 'POST /messages', ratio: 1 });
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `r-${i}` })));
      await until(
        () => storedCounts(sandbox, contents).some((n) => n > 0),
        10_000,
        () => 'the first sends',
      );
      await cluster.restart(owner, 500); // down half a second (the fault's shape), back with its file
      await until(
        () => storedCounts(sandbox, contents).every((n) => n >= 1),
        60_000,
        () => `sent: ${storedCounts(sandbox, contents).join('')}`,
      );
      // Nothing left to run: no POST can come after the count.
      await untilDrained(queue);
      await Promise.all(workers.map((worker) => worker.close()));
      expectStoredOnce(storedCounts(sandbox, contents));
    } finally {
      sandbox.faults.clear();
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
    }
  }, 90_000);
});
