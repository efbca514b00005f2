/**
 * Section 15's datastores (bench/fleet-limit.mjs): the throwaway Redis or PostgreSQL a run's queue
 * lives in (on 127.0.0.1, stopped by PID), what its workers are told, and what the server counted
 * since the run's reset:
 *
 * - Redis: `INFO commandstats` (CONFIG RESETSTAT to reset): every command run, the ones a script
 *   runs inside Redis too;
 * - PostgreSQL: `pg_stat_statements` (preloaded, `track = all`; `pg_stat_statements_reset()` to
 *   reset): the statements the clients sent (top level: BEGIN and COMMIT too), and the ones run
 *   inside functions (nested: the SDK's admission function's and BullMQ's).
 *
 * The bench's own readings go through a client of their own, left out of the client-side counts
 * (bench/round-trips.mjs) and, on PostgreSQL, of the server's (they name pg_stat_statements).
 */

import { postgresAvailable, startPostgresWithBullmq } from '../test/helpers/postgres.ts';
import { hasRedis, startRedis } from '../test/helpers/redis.ts';
import { exclude } from './round-trips.mjs';

/**
 * @typedef {{ calls: number, scripts: number, byCommand: Record<string, number> }} RedisCounts
 * @typedef {{ topLevel: number, nested: number, byStatement: Record<string, number> }} PostgresCounts
 * @typedef {object} Datastore
 * @property {'redis' | 'postgres'} kind
 * @property {Record<string, string>} env what the workers are told (test/integration/bullmq/crash-worker.mjs)
 * @property {object} connection the producer's `connection`
 * @property {() => Promise<unknown>} reset the server's counters to zero
 * @property {() => Promise<{ redis?: RedisCounts, postgres?: PostgresCounts }>} read the server's counters
 * @property {() => Promise<void>} stop
 */

/** @returns {Promise<Datastore | string>} the store, or why it cannot run */
export async function redisDatastore() {
  if (!hasRedis) return 'redis-server not installed (apt-get install -y redis-server)';
  const redis = await startRedis();
  const { Redis } = await import('ioredis');
  const client = exclude(new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }));
  return {
    kind: 'redis',
    env: { REDIS_PORT: String(redis.port) },
    connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null },
    reset: () => client.config('RESETSTAT'),
    read: async () => {
      const info = await client.info('commandstats');
      /** @type {RedisCounts} */
      const counts = { calls: 0, scripts: 0, byCommand: {} };
      for (const [, name = '', n] of info.matchAll(/^cmdstat_([a-z|_]+):calls=(\d+)/gm)) {
        counts.calls += Number(n);
        counts.byCommand[name] = Number(n);
        if (name === 'evalsha' || name === 'eval') counts.scripts += Number(n);
      }
      return { redis: counts };
    },
    stop: async () => {
      client.disconnect();
      await redis.stop();
    },
  };
}

// A statement's text as pg_stat_statements keeps it, whitespace folded, cut for the breakdown.
const STATEMENTS = `
  SELECT toplevel, left(regexp_replace(regexp_replace(query, '--[^\n]*\n', '', 'g'), '\\s+', ' ', 'g'), 72) AS statement, sum(calls)::bigint AS calls
    FROM pg_stat_statements
   WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND query NOT LIKE '%pg_stat_statements%'
   GROUP BY 1, 2`;

/** @returns {Promise<Datastore | string>} the store, or why it cannot run */
export async function postgresDatastore() {
  if (!postgresAvailable()) return 'no PostgreSQL server binaries (apt-get install -y postgresql)';
  const db = await startPostgresWithBullmq({
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' },
  });
  const { default: pg } = await import('pg');
  const reader = exclude(new pg.Client({ connectionString: db.url }));
  try {
    const connection = { postgres: { connectionString: db.url, max: 4 } };
    // The SDK's tables made now, as a deployment does: no DDL among the counted statements.
    const { migrate } = await import('../dist/bullmq/index.js');
    await migrate(connection);
    await reader.connect();
    await reader.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return {
      kind: 'postgres',
      env: { PG_URL: db.url },
      connection,
      reset: () => reader.query('SELECT pg_stat_statements_reset()'),
      read: async () => {
        /** @type {PostgresCounts} */
        const counts = { topLevel: 0, nested: 0, byStatement: {} };
        const { rows } = await reader.query(STATEMENTS);
        for (const row of rows) {
          const calls = Number(row.calls);
          if (row.toplevel) counts.topLevel += calls;
          else counts.nested += calls;
          const name = `${row.toplevel ? '' : '(nested) '}${row.statement}`;
          counts.byStatement[name] = (counts.byStatement[name] ?? 0) + calls;
        }
        return { postgres: counts };
      },
      stop: async () => {
        await reader.end();
        await db.stop();
      },
    };
  } catch (error) {
    await reader.end().catch(() => undefined);
    await db.stop();
    throw error;
  }
}
