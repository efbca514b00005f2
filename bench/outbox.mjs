/**
 * Section 11, "outbox" (reported, not a target): `MessagingOutbox` on a throwaway PostgreSQL with
 * the queue in the same database. `messages` transactions, `concurrency` at a time, each adding one
 * message and committing; one relay (its default batch, LISTEN/NOTIFY) hands them to the queue.
 * Hand-off latency is from each COMMIT's return to the job's `timestamp` (when BullMQ stored it,
 * same machine clock); throughput is messages per second from the first commit to the last job.
 * Needs PostgreSQL's server binaries; without them the section reports itself skipped.
 */
import { postgresAvailable, startPostgresWithBullmq } from '../test/helpers/postgres.ts';
import { round } from './stats.mjs';

/** @param {number[]} sorted @param {number} q */
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** @param {{ messages: number, concurrency: number, deadlineMs: number }} config */
export async function benchOutbox(config) {
  if (!postgresAvailable()) return { skipped: 'no PostgreSQL server binaries (apt-get install -y postgresql)' };
  const db = await startPostgresWithBullmq();
  const { default: pg } = await import('pg');
  const { Queue, createPostgresBackend } = await import('bullmq');
  const { MessagingOutbox, MessagingQueue } = await import('../dist/bullmq/index.js');
  const pool = new pg.Pool({ connectionString: db.url, max: config.concurrency + 2 });
  pool.on('error', () => undefined);
  const postgres = { connectionString: db.url, max: 4 };
  const name = `bench-outbox-${process.pid}`;
  const queue = new MessagingQueue({ connection: { postgres }, name });
  const raw = new Queue(name, { connection: postgres }, createPostgresBackend);
  raw.on('error', () => undefined);
  const outbox = new MessagingOutbox({ queue });
  await outbox.migrate(pool);
  const relay = outbox.relay({ pool });
  /** @type {Map<string, number>} id -> when its COMMIT returned (epoch ms) */
  const committed = new Map();
  try {
    const started = Date.now();
    let next = 0;
    const writer = async () => {
      for (let i = next++; i < config.messages; i = next++) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const id = `bench-${i}`;
          await outbox.add(
            client,
            { sender_phone: '+15550001001', to_phone: '+15557654321', type: 'text', content: `Outbox ${i}` },
            { id },
          );
          await client.query('COMMIT');
          committed.set(id, Date.now());
        } finally {
          client.release();
        }
      }
    };
    await Promise.all(Array.from({ length: config.concurrency }, writer));
    const deadline = Date.now() + config.deadlineMs;
    let jobs = [];
    while (Date.now() < deadline) {
      jobs = await raw.getJobs(['wait', 'prioritized', 'delayed', 'active', 'completed', 'failed']);
      if (jobs.length >= config.messages) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const latencies = jobs
      .map((job) => job.timestamp - (committed.get(String(job.id)) ?? Number.NaN))
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    const lastJob = Math.max(...jobs.map((job) => job.timestamp));
    return {
      messages: config.messages,
      concurrency: config.concurrency,
      handedOff: jobs.length,
      handOffP50Ms: round(quantile(latencies, 0.5), 1),
      handOffP99Ms: round(quantile(latencies, 0.99), 1),
      messagesPerSecond: round((jobs.length / Math.max(1, lastJob - started)) * 1000, 0),
    };
  } finally {
    await relay.close();
    await raw.close();
    await queue.close();
    await pool.end();
    await db.stop();
  }
}
