/**
 * The producer side of the fleet (a web server would do this per request): enqueues order
 * updates in Redis, where the workers pick them up, then follows what happens to them through
 * `updates()` (sent, delivered..., from whichever worker handled each) and prints a summary.
 *
 *   node examples/fleet/producer.ts [count]
 *
 * Also: REDIS_URL (default redis://127.0.0.1:6379), QUEUE (default sms), TENANT_MESSAGING_SENDER,
 * BATCH (the ids' prefix: the same id enqueued twice sends once; default: a new one per run),
 * WAIT_MS (how long to follow the updates, default 600000: longer than the workers' TRACK_TIMEOUT_MS).
 */
import { MessagingQueue, type UpdateStatus } from 'tenant-messaging/bullmq';

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

const count = Number(process.argv[2] ?? 20);
const sender = process.env.TENANT_MESSAGING_SENDER ?? '+15550001001';
const batch = process.env.BATCH ?? `batch-${Date.now().toString(36)}`;
const queue = new MessagingQueue({ connection: redisConnection(), name: queueName });

// Listen before enqueueing: an update published in between would otherwise be missed.
const abort = new AbortController();
const updates = queue.updates({ signal: abort.signal });
const timer = setTimeout(() => abort.abort(), Number(process.env.WAIT_MS ?? 600_000));

const orders = Array.from({ length: count }, (_, i) => ({
  // Your business id: enqueueing the same order twice (a retried web request) sends it once.
  id: `${batch}-order-${1001 + i}`,
  params: {
    sender_phone: sender,
    to_phone: `+1555765${String(4001 + i).padStart(4, '0')}`,
    type: 'text' as const,
    content: `Order #${1001 + i} has shipped.`,
  },
}));
const ids = new Set(await queue.sendMany(orders));
console.log(`enqueued ${ids.size} sends (${batch})`);

const last = new Map<string, UpdateStatus>();
const ended = (status: UpdateStatus | undefined) => status !== undefined && status !== 'sent';
try {
  for await (const update of updates) {
    if (!ids.has(update.id)) continue;
    last.set(update.id, update.status);
    if (update.status === 'failed' || update.status === 'unknown') {
      console.error(`${update.id}: ${update.status}: ${update.error?.message}`);
    }
    if ([...ids].every((id) => ended(last.get(id)))) break;
  }
} catch (error) {
  if (!abort.signal.aborted) throw error;
} finally {
  clearTimeout(timer);
  await queue.close();
}

const tally = (status: UpdateStatus) => [...last.values()].filter((s) => s === status).length;
const sent = [...last.values()].filter((s) => s !== 'failed' && s !== 'unknown').length;
const open = [...ids].filter((id) => !ended(last.get(id))).length;
console.log(
  `fleet: ${ids.size} enqueued, ${sent} sent, ${tally('failed')} failed, ${tally('unknown')} unknown; ` +
    `${tally('delivered') + tally('read')} delivered or read, ${tally('delivery-timeout')} not confirmed in time, ` +
    `${open} still open`,
);
// Still open after WAIT_MS: the workers are down or behind (they keep the sends; nothing is lost).
if (open > 0) process.exitCode = 1;
