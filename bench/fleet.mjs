/**
 * Section 10, "fleet" (reported, not a target): `tenant-messaging/bullmq` workers in processes of
 * their own against the sandbox in its own process, limited per key. For 1, 2 and 4 worker
 * processes: the achieved send rate / limit and the busiest sliding second (sends and polls), and
 * the polls spent per settled (delivered) message. Then the Redis memory a waiting send and a
 * tracked message hold (`INFO memory` used_memory, before and after).
 * Needs `redis-server` on the PATH; without it the section reports itself skipped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
// Node runs the helper as it is (type stripping): the bench and the tests start Redis one way.
import { postgresAvailable, startPostgresWithBullmq } from '../test/helpers/postgres.ts';
import { hasRedis, startRedis as startTestRedis } from '../test/helpers/redis.ts';
import { forkChild } from './ipc.mjs';
import { round } from './stats.mjs';
import { startWorkers, stopWorkers } from './workers.mjs';

// Shared with the fleet test (test/integration/bullmq/fleet/fleet-run.ts): the same sandbox process (and the
// same worker, bench/workers.mjs).
const SANDBOX = new URL('../test/integration/bullmq/fleet-sandbox.mjs', import.meta.url);
const SENDER = '+15550001001';
const TO = '+15557654321';

/** @param {number} i @param {string} tag */
const item = (i, tag) => ({
  id: `${tag}-${i}`,
  params: { sender_phone: SENDER, to_phone: TO, type: /** @type {const} */ ('text'), content: `Fleet ${tag} ${i}` },
});

/**
 * The test suite's throwaway redis-server (test/helpers/redis.ts: a free loopback port, no
 * persistence, killed by PID), with a client for `INFO memory`.
 */
async function startRedis() {
  const redis = await startTestRedis();
  const { Redis } = await import('ioredis');
  const client = new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });
  return {
    port: redis.port,
    /** used_memory of `INFO memory`, in bytes */
    usedMemory: async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1]),
    stop: async () => {
      client.disconnect();
      await redis.stop();
    },
  };
}

/**
 * Where a run's queue lives: Redis, or PostgreSQL (BullMQ's backend), as the workers are told it.
 * @typedef {{ backend: 'redis' | 'postgres', env: Record<string, string>, connection: object }} Store
 */

/** @param {{ port: number }} redis @returns {Store} */
const redisStore = (redis) => ({
  backend: 'redis',
  env: { REDIS_PORT: String(redis.port) },
  connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null },
});

/**
 * A throwaway PostgreSQL cluster (test/helpers/postgres.ts) with BullMQ's tables, as its docs say
 * to create them: `runMigrations` once.
 */
async function startPostgresStore() {
  const db = await startPostgresWithBullmq();
  /** @type {Store} */
  const store = {
    backend: 'postgres',
    env: { PG_URL: db.url },
    connection: { postgres: { connectionString: db.url, max: 4 } },
  };
  return { store, stop: () => db.stop() };
}

/**
 * One run: `workers` processes send and track `messages` through a sandbox limited to `limit`/s.
 * @param {Store} store @param {number} workers @param {{ messages: number, limit: number, deadlineMs: number }} config
 */
async function rateRun(store, workers, config) {
  const { MessagingQueue } = await import('../dist/bullmq/index.js');
  const sandbox = await forkChild(SANDBOX, [String(config.limit), String(config.messages)]);
  const name = `bench-fleet-${workers}-${process.pid}`;
  const connection = store.connection;
  const queue = new MessagingQueue({ connection, name });
  const abort = new AbortController();
  /** @type {import('node:child_process').ChildProcess[]} */
  let fleet = [];
  try {
    fleet = await startWorkers(workers, {
      ...store.env,
      QUEUE: name,
      BASE_URL: sandbox.ready.url,
      API_KEY: sandbox.ready.key,
      RPS: String(config.limit),
      TRACK: JSON.stringify({ until: 'delivered', interval: 500, timeout: 60_000 }),
    });
    let settled = 0;
    const started = performance.now();
    const reading = (async () => {
      for await (const update of queue.updates({ from: 'start', signal: abort.signal })) {
        if (update.status !== 'sent' && ++settled >= config.messages) return;
      }
    })().catch(() => {});
    await queue.sendMany(Array.from({ length: config.messages }, (_, i) => item(i, `r${workers}`)));
    await Promise.race([reading, sleep(config.deadlineMs, undefined, { ref: false })]);
    const totalMs = performance.now() - started;
    const stats = await sandbox.call('stats');
    return {
      backend: store.backend,
      workers,
      messages: config.messages,
      limitPerSecond: config.limit,
      sendsPerSecond: round(stats.sendsPerSecond, 1),
      ratio: round(stats.sendsPerSecond / config.limit, 3),
      // Sends and polls share the limit: this is the share of it the fleet used.
      requestsPerSecond: round(stats.requestsPerSecond, 1),
      requestRatio: round(stats.requestsPerSecond / config.limit, 3),
      busiestSlidingSecond: stats.busiestSecond,
      rejected429: stats.rejected,
      settled,
      polls: stats.polls,
      pollsPerSettled: settled > 0 ? round(stats.polls / settled, 2) : null,
      duplicates: Object.values(stats.stored).filter((n) => n > 1).length,
      totalMs: round(totalMs, 0),
    };
  } finally {
    abort.abort();
    await stopWorkers(fleet);
    await queue.close();
    await sandbox.close();
  }
}

/**
 * Redis memory: `waiting` sends enqueued and left waiting, then `tracked` messages sent (no limit)
 * and left waiting for a poll an hour away.
 * @param {Awaited<ReturnType<typeof startRedis>>} redis @param {{ waiting: number, tracked: number, deadlineMs: number }} config
 */
async function memoryRun(redis, config) {
  const { MessagingQueue } = await import('../dist/bullmq/index.js');
  const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
  const waitingQueue = new MessagingQueue({ connection, name: `bench-mem-waiting-${process.pid}` });
  const before = await redis.usedMemory();
  await waitingQueue.sendMany(Array.from({ length: config.waiting }, (_, i) => item(i, 'w')));
  const afterWaiting = await redis.usedMemory();
  await waitingQueue.close();

  // No limit that matters: the tracked messages are sent as fast as one worker can.
  const sandbox = await forkChild(SANDBOX, ['100000', String(config.tracked)]);
  const name = `bench-mem-tracked-${process.pid}`;
  const queue = new MessagingQueue({ connection, name });
  /** @type {import('node:child_process').ChildProcess[]} */
  let fleet = [];
  try {
    const start = await redis.usedMemory();
    fleet = await startWorkers(1, {
      REDIS_PORT: String(redis.port),
      QUEUE: name,
      BASE_URL: sandbox.ready.url,
      API_KEY: sandbox.ready.key,
      CONCURRENCY: '16',
      TRACK: JSON.stringify({ until: 'read', interval: 3_600_000, timeout: 7_200_000 }),
    });
    await queue.sendMany(Array.from({ length: config.tracked }, (_, i) => item(i, 't')));
    const deadline = Date.now() + config.deadlineMs;
    while ((await queue.counts()).tracking < config.tracked && Date.now() < deadline) await sleep(100);
    const { tracking } = await queue.counts();
    const afterTracked = await redis.usedMemory();
    return {
      waiting: config.waiting,
      bytesPerWaitingSend: round((afterWaiting - before) / config.waiting, 0),
      tracked: tracking,
      bytesPerTrackedMessage: tracking > 0 ? round((afterTracked - start) / tracking, 0) : null,
    };
  } finally {
    await stopWorkers(fleet);
    await queue.close();
    await sandbox.close();
  }
}

/**
 * @param {{ messages: number, limit: number, deadlineMs: number, workers: number[], memory: { waiting: number, tracked: number, deadlineMs: number } }} config
 */
export async function benchFleet(config) {
  if (!hasRedis) {
    return { skipped: 'redis-server not installed (apt-get install -y redis-server)' };
  }
  const redis = await startRedis();
  try {
    const runs = [];
    for (const workers of config.workers) runs.push(await rateRun(redisStore(redis), workers, config));
    const memory = await memoryRun(redis, config.memory);
    // The same fleet on PostgreSQL, at the largest worker count: what choosing a backend changes.
    let postgres;
    if (postgresAvailable()) {
      const pg = await startPostgresStore();
      try {
        postgres = await rateRun(pg.store, Math.max(...config.workers), config);
      } finally {
        await pg.stop();
      }
    }
    return { runs, memory, ...(postgres ? { postgres } : {}) };
  } finally {
    await redis.stop();
  }
}
