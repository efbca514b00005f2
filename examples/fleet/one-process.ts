import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';

// BullMQ blocks on Redis: ioredis must wait for a reconnect instead of failing its commands.
const connection = { host: '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379), maxRetriesPerRequest: null };

// Producer (web servers): durable, and idempotent per business id.
const queue = new MessagingQueue({ connection, name: 'sms' });
const updates = queue.updates(); // from now on: listen before sending, and miss nothing
const order = { id: 1042, phone: '+15557654321' };
await queue.send(
  { sender_phone: '+15550001001', to_phone: order.phone, type: 'text', content: 'Your order shipped' },
  { id: `order-${order.id}` },
);

// Workers (any number of processes, on any number of machines). The client reads
// TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY from the environment.
const worker = new MessagingWorker({
  connection,
  name: 'sms',
  client: new MessagingClient(),
  concurrency: 8,
  rateLimit: { requestsPerSecond: 50 },
  trackDelivery: { until: 'delivered' },
});

// A deploy's SIGTERM: sends in flight finish, nothing new starts, then the loop below ends.
process.once('SIGTERM', async () => {
  await worker.close();
  await queue.close();
});

// Anywhere: what happens to each send, from whichever worker handled it.
for await (const update of updates) console.log(update.id, update.status);
