/**
 * A worker of the fleet: takes sends from the queue in Redis, sends them within the tenant's rate
 * limit (shared by every worker of the queue, on any machine), and polls each sent message until
 * it is delivered. Run as many as you like; stop one with Ctrl-C or SIGTERM (it finishes its sends).
 *
 *   TENANT_MESSAGING_BASE_URL=... TENANT_MESSAGING_API_KEY=... node examples/fleet/worker.ts
 *
 * Also: REDIS_URL (default redis://127.0.0.1:6379), QUEUE (default sms), RATE_LIMIT (requests
 * per second for the whole fleet, default 50), CONCURRENCY (sends at once in this process, default 4),
 * TRACK_TIMEOUT_MS (how long to poll a message that is not delivered, default 300000).
 */
import { MessagingClient } from 'tenant-messaging';
import { MessagingWorker } from 'tenant-messaging/bullmq';

/**
 * The Redis connection, from `REDIS_URL` (`redis://[user:password@]host:port[/db]`). The same in
 * producer.ts and worker.ts: Node runs these files as they are, so they import no local module.
 */
function redisConnection() {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const db = Number(url.pathname.slice(1) || 0);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(db > 0 ? { db } : {}),
    // BullMQ's workers block on Redis: ioredis must wait for a reconnect instead of failing their commands.
    maxRetriesPerRequest: null,
  };
}

/** The queue's name: producers and workers of one outbox share it (`QUEUE`, default `sms`). */
const queueName = process.env.QUEUE ?? 'sms';

const worker = new MessagingWorker({
  connection: redisConnection(),
  name: queueName,
  // The API key stays in this process: it is never written to Redis.
  client: new MessagingClient(),
  concurrency: Number(process.env.CONCURRENCY ?? 4),
  // Every worker of the queue must give the same limit: it is the tenant's, not this process's.
  rateLimit: { requestsPerSecond: Number(process.env.RATE_LIMIT ?? 50) },
  // Polls share the limit with the sends; a message not delivered within TRACK_TIMEOUT_MS (default
  // 5 minutes) is reported `delivery-timeout`.
  trackDelivery: { until: 'delivered', timeout: Number(process.env.TRACK_TIMEOUT_MS ?? 300_000), interval: 1_000 },
  logger: console,
});

await worker.ready();
console.log(`worker ${process.pid} ready on queue ${queueName}`);

let closing = false;
const stop = async (signal: string) => {
  if (closing) return;
  closing = true;
  console.log(`${signal}: finishing the sends in progress`);
  await worker.close();
  console.log(`worker ${process.pid} stopped`);
};
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
