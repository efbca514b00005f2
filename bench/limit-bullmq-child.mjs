/**
 * Section 15's comparison (bench/fleet-limit.mjs): the same sends through BullMQ's own limiter
 * alone, `{ max: RPS, duration: 1000 }` (N starts per fixed window), with no fleet gate. A plain
 * BullMQ worker whose job is one `client.messages.send`; settings from the environment
 * (REDIS_PORT, or PG_URL for BullMQ's PostgreSQL backend; QUEUE, BASE_URL, API_KEY, RPS,
 * CONCURRENCY). It says 'ready' over IPC and closes on SIGTERM. Run from the built package.
 */
import { createPostgresBackend, Worker } from 'bullmq';
import { MessagingClient } from '../dist/index.js';

const env = process.env;
const client = new MessagingClient({
  baseUrl: env.BASE_URL,
  apiKey: env.API_KEY,
  maxRetries: 0,
  rateLimit: { adaptive: false },
});
const options = {
  concurrency: Number(env.CONCURRENCY ?? 4),
  limiter: { max: Number(env.RPS), duration: 1_000 },
};
/** @type {import('bullmq').Processor} */
const send = async (job) => (await client.messages.send(job.data)).id;
const worker = env.PG_URL
  ? new Worker(
      env.QUEUE ?? 'limit',
      send,
      { ...options, connection: { connectionString: env.PG_URL, max: 4 } },
      createPostgresBackend,
    )
  : new Worker(env.QUEUE ?? 'limit', send, {
      ...options,
      connection: { host: '127.0.0.1', port: Number(env.REDIS_PORT), maxRetriesPerRequest: null },
    });
await worker.waitUntilReady();
process.send?.('ready');
process.on('SIGTERM', async () => {
  await worker.close();
  await client.close();
  process.exit(0);
});
