// tenant-messaging/bullmq on each runtime (test/integration/ecosystem/runtimes.test.ts): a queue and a worker
// in one process, against the Redis at REDIS_PORT and the sandbox at BASE_URL; three sends, each
// reported `sent` through updates(), then both closed. bullmq and ioredis are linked into the
// project by the test. Prints one line, `RESULT {...}`.
import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';

const env = process.env;
const connection = { host: '127.0.0.1', port: Number(env.REDIS_PORT), maxRetriesPerRequest: null };
// Its own queue: the runtimes run side by side against the one Redis.
const name = `eco-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
const result = {};
try {
  const queue = new MessagingQueue({ connection, name });
  const worker = new MessagingWorker({
    connection,
    name,
    client: new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY }),
    rateLimit: { requestsPerSecond: 20 },
  });
  await worker.ready();
  const updates = queue.updates({ from: 'start' })[Symbol.asyncIterator]();
  const ids = await queue.sendMany(
    [0, 1, 2].map((i) => ({
      id: `m-${i}`,
      params: { sender_phone: env.SENDER, to_phone: env.TO, type: 'text', content: `Queued ${i}` },
    })),
  );
  const sent = new Set();
  const deadline = Date.now() + 15_000;
  while (sent.size < ids.length && Date.now() < deadline) {
    const { value, done } = await updates.next();
    if (done) break;
    if (value.status === 'sent') sent.add(value.id);
  }
  await updates.return?.();
  result.sent = [...sent].sort();
  await worker.close();
  await queue.close();
  result.closed = true;
} catch (error) {
  result.error = `${error?.name}: ${error?.message}`.slice(0, 400);
}
console.log(`RESULT ${JSON.stringify(result)}`);
process.exit(0);
