// A WebhookRelay process for the webhook fleet test (the built package: `npm run build` first).
// Its endpoints come from the environment as JSON (ENDPOINTS, with the secrets), it logs to
// stdout as a user's logger would, says 'ready' over IPC, and closes gracefully on SIGTERM.
import { WebhookRelay } from '../../../../dist/bullmq/index.js';

const env = process.env;
const log = (level) => (message, meta) => console.log(JSON.stringify({ level, message, ...meta }));
const relay = new WebhookRelay({
  connection: { host: '127.0.0.1', port: Number(env.REDIS_PORT), maxRetriesPerRequest: null },
  name: env.QUEUE,
  endpoints: JSON.parse(env.ENDPOINTS),
  timeout: 1_000,
  lockDuration: 2_000,
  stalledInterval: 1_000,
  logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
});
await relay.ready();
process.send?.('ready');
process.on('SIGTERM', async () => {
  await relay.close();
  process.exit(0);
});
