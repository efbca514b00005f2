// A worker process for the tests that kill workers (test/integration/bullmq/crash.test.ts, and the fleet test):
// it runs the built package (vitest's aliases do not reach a child process), so `npm run build` first.
// Settings come from the environment (REDIS_PORT or PG_URL for the queue's datastore; LANES, JSON, for rateLimit's lanes); it says 'ready' over IPC, and closes gracefully on SIGTERM.
// Sent 'hold-next-send' over IPC, it lets its next POST /messages reach the service and be stored,
// then holds the answer forever and says 'in-send': the parent's kill -9 then lands inside a send.

import { MessagingWorker } from '../../../dist/bullmq/index.js';
import { MessagingClient } from '../../../dist/index.js';

const env = process.env;
const number = (name) => (env[name] ? Number(env[name]) : undefined);
let holdNextSend = false;
process.on('message', (message) => {
  if (message === 'hold-next-send') holdNextSend = true;
});
/** @type {(input: string | URL | Request, init?: RequestInit) => Promise<Response>} */
const fetchHolding = async (input, init) => {
  const response = await fetch(input, init);
  const url = String(input instanceof Request ? input.url : input);
  if (holdNextSend && (init?.method ?? 'GET') === 'POST' && /\/messages$/.test(url)) {
    process.send?.('in-send');
    await new Promise(() => {}); // the answer never comes back: only the kill ends this
  }
  return response;
};
// PG_URL: the queue is in PostgreSQL (BullMQ's backend, a pool per BullMQ object); else in Redis.
const connection = env.PG_URL
  ? { postgres: { connectionString: env.PG_URL, max: 4 } }
  : { host: '127.0.0.1', port: Number(env.REDIS_PORT), maxRetriesPerRequest: null };
const worker = new MessagingWorker({
  connection,
  name: env.QUEUE,
  client: new MessagingClient({ baseUrl: env.BASE_URL, apiKey: env.API_KEY, timeout: 10_000, fetch: fetchHolding }),
  lockDuration: number('LOCK_MS') ?? 5_000,
  stalledInterval: number('STALLED_MS') ?? 2_000,
  ...(number('CLOCK_SKEW_MS') === undefined ? {} : { clockSkewMs: number('CLOCK_SKEW_MS') }),
  ...(number('CONCURRENCY') ? { concurrency: number('CONCURRENCY') } : {}),
  ...(number('RPS') ? { rateLimit: { requestsPerSecond: number('RPS'), ...JSON.parse(env.LANES ?? '{}') } } : {}),
  ...(env.TRACK ? { trackDelivery: JSON.parse(env.TRACK) } : {}),
});
await worker.ready();
process.send?.('ready');
process.on('SIGTERM', async () => {
  await worker.close();
  process.exit(0);
});
