// A worker process for test/bullmq/crash.test.ts, which kills it with SIGKILL mid-send. It runs the
// built package (vitest's aliases do not reach a child process): `npm run build` first.

import { MessagingWorker } from '../../dist/bullmq/index.js';
import { MessagingClient } from '../../dist/index.js';

const { REDIS_PORT, QUEUE, BASE_URL, API_KEY } = process.env;
const worker = new MessagingWorker({
  connection: { host: '127.0.0.1', port: Number(REDIS_PORT), maxRetriesPerRequest: null },
  name: QUEUE,
  client: new MessagingClient({ baseUrl: BASE_URL, apiKey: API_KEY, timeout: 10_000 }),
  lockDuration: 5_000,
  stalledInterval: 2_000,
});
await worker.ready();
process.send?.('ready');
process.on('SIGTERM', async () => {
  await worker.close();
  process.exit(0);
});
