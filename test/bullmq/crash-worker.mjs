// A worker process for the tests that kill workers (test/bullmq/crash.test.ts, and the fleet test):
// it runs the built package (vitest's aliases do not reach a child process), so `npm run build` first.
// Settings come from the environment; it says 'ready' over IPC, and closes gracefully on SIGTERM.

import { MessagingWorker } from '../../dist/bullmq/index.js';
import { MessagingClient } from '../../dist/index.js';

const env = process.env;
const number = (name) => (env[name] ? Number(env[name]) : undefined);
const worker = new MessagingWorker({
  connection: { host: '127.0.0.1', port: Number(env.REDIS_PORT), maxRetriesPerRequest: null },
  name: env.QUEUE,
  client: new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY, timeout: 10_000 }),
  lockDuration: 5_000,
  stalledInterval: 2_000,
  ...(number('CONCURRENCY') ? { concurrency: number('CONCURRENCY') } : {}),
  ...(number('RPS') ? { rateLimit: { requestsPerSecond: number('RPS') } } : {}),
  ...(env.TRACK ? { trackDelivery: JSON.parse(env.TRACK) } : {}),
});
await worker.ready();
process.send?.('ready');
process.on('SIGTERM', async () => {
  await worker.close();
  process.exit(0);
});
