// An outbox relay process for the outbox fault tests (the built package: `npm run build` first),
// set up as an application would: its own pg.Pool with an 'error' listener, a queue on the same
// PostgreSQL, a logger printing one JSON line per call. Says 'ready' over IPC; ends on SIGTERM.
import pg from 'pg';
import { MessagingOutbox, MessagingQueue } from '../../../../dist/bullmq/index.js';

const env = process.env;
const line = (level) => (message, fields) => console.log(JSON.stringify({ level, message, ...fields }));
const logger = { debug() {}, info() {}, warn: line('warn'), error: line('error') };
// application_name marks this process's connections, which the test terminates (and no others).
const pool = new pg.Pool({ connectionString: env.PG_URL, max: 4, application_name: 'outbox-relay-under-test' });
pool.on('error', (error) => console.log(JSON.stringify({ level: 'pool', message: String(error) })));
const queue = new MessagingQueue({
  connection: { postgres: { connectionString: env.PG_URL, max: 4 } },
  name: env.QUEUE,
});
const outbox = new MessagingOutbox({ queue, table: env.TABLE });
const relay = outbox.relay({ pool, interval: Number(env.INTERVAL), logger });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await relay.close();
  await queue.close();
  await pool.end();
  process.exitCode = 0;
});
