// An outbox relay process for the outbox crash test (the built package: `npm run build` first).
// HANG=claim: after its first claim that returns rows, it says 'claimed' over IPC and hangs (the
// parent kills it between claiming rows and adding jobs); HANG=delete: before its first DELETE,
// it says 'added' and hangs (killed between adding jobs and deleting rows); otherwise it relays.
// The hooks wrap the pool, as a user's own pool would be: nothing in the SDK knows about them.
import pg from 'pg';
import { MessagingOutbox, MessagingQueue } from '../../../../dist/bullmq/index.js';

const env = process.env;
const pool = new pg.Pool({ connectionString: env.PG_URL, max: 4 });
const hang = () => new Promise(() => {});
let hung = false;
const connect = pool.connect.bind(pool);
pool.connect = async () => {
  const client = await connect();
  const query = client.query.bind(client);
  client.query = async (text, values) => {
    if (!hung && env.HANG === 'delete' && typeof text === 'string' && text.startsWith('DELETE FROM')) {
      hung = true;
      process.send?.('added');
      return hang();
    }
    const result = await query(text, values);
    if (
      !hung &&
      env.HANG === 'claim' &&
      typeof text === 'string' &&
      text.includes('FOR UPDATE SKIP LOCKED') &&
      result.rows.length > 0
    ) {
      hung = true;
      process.send?.('claimed');
      return hang();
    }
    return result;
  };
  return client;
};

const queue = new MessagingQueue({
  connection: { postgres: { connectionString: env.PG_URL, max: 4 } },
  name: env.QUEUE,
});
const outbox = new MessagingOutbox({ queue });
const relay = outbox.relay({ pool, batch: Number(env.BATCH ?? 50), interval: 200 });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await relay.close();
  await queue.close();
  await pool.end();
  process.exit(0);
});
