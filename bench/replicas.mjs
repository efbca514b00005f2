/**
 * Section 12, "waitForReplicas" (reported, not a target): what `MessagingQueue`'s opt-in costs on
 * a primary with one replica on loopback (both with an append-only file). The same sequential
 * `queue.send()` calls with and without `waitForReplicas: { replicas: 1 }`, in one run: sends a
 * second and the median latency of each, and their ratio. Needs `redis-server` on the PATH.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { hasRedis, startRedis } from '../test/helpers/redis.ts';
import { median, round } from './stats.mjs';

const params = (/** @type {number} */ i) => ({
  sender_phone: '+15550001001',
  to_phone: '+15557654321',
  type: /** @type {const} */ ('text'),
  content: `Replicas ${i}`,
});

/** @param {{ sends: number }} config */
export async function benchReplicas(config) {
  if (!hasRedis) return { skipped: 'redis-server not installed (apt-get install -y redis-server)' };
  const { MessagingQueue } = await import('../dist/bullmq/index.js');
  const { Redis } = await import('ioredis');
  const primary = await startRedis();
  const replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const probe = new Redis({ host: '127.0.0.1', port: replica.port, maxRetriesPerRequest: null });
  try {
    for (let tries = 0; !/master_link_status:up/.test(await probe.info('replication')); tries++) {
      if (tries > 200) throw new Error('the replica did not sync');
      await sleep(50);
    }
    /** @param {string} tag @param {object} extra */
    const run = async (tag, extra) => {
      const queue = new MessagingQueue({ connection: primary.connection, name: `bench-${tag}`, ...extra });
      try {
        for (let i = 0; i < 20; i++) await queue.send(params(i)); // warm-up: connections, scripts
        const latencies = [];
        const started = performance.now();
        for (let i = 0; i < config.sends; i++) {
          const at = performance.now();
          await queue.send(params(i), { id: `${tag}-${i}` });
          latencies.push(performance.now() - at);
        }
        const seconds = (performance.now() - started) / 1000;
        return { sendsPerSecond: round(config.sends / seconds, 1), p50Ms: round(median(latencies), 3) };
      } finally {
        await queue.close();
      }
    };
    const plain = await run('plain', {});
    const waited = await run('wait', { waitForReplicas: { replicas: 1, timeout: 1000 } });
    return { sends: config.sends, plain, waited, ratio: round(waited.sendsPerSecond / plain.sendsPerSecond, 2) };
  } finally {
    probe.disconnect();
    await replica.stop();
    await primary.stop();
  }
}

// `node bench/replicas.mjs [sends]`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const sends = Number(process.argv[2] ?? 1000);
  process.stdout.write(`${JSON.stringify(await benchReplicas({ sends }), null, 2)}\n`);
}
