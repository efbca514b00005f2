/**
 * Section 15's comparison (bench/fleet-limit.mjs): the same sends through BullMQ's own limiter
 * alone, `{ max: RPS, duration: 1000 }` (N starts per fixed window), with no fleet gate. A plain
 * BullMQ worker whose job is one `client.messages.send`; settings from the environment
 * (REDIS_PORT, QUEUE, BASE_URL, API_KEY, RPS, CONCURRENCY). It says 'ready' over IPC and closes
 * on SIGTERM. Run from the built package.
 */
import { Worker } from 'bullmq';
import { MessagingClient } from '../dist/index.js';

const env = process.env;
const client = new MessagingClient({
  baseUrl: env.BASE_URL,
  apiKey: env.API_KEY,
  maxRetries: 0,
  rateLimit: { adaptive: false },
});
const worker = new Worker(env.QUEUE ?? 'limit', async (job) => (await client.messages.send(job.data)).id, {
  connection: { host: '127.0.0.1', port: Number(env.REDIS_PORT), maxRetriesPerRequest: null },
  concurrency: Number(env.CONCURRENCY ?? 4),
  limiter: { max: Number(env.RPS), duration: 1_000 },
});
await worker.waitUntilReady();
process.send?.('ready');
process.on('SIGTERM', async () => {
  await worker.close();
  await client.close();
  process.exit(0);
});
