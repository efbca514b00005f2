/**
 * WebhookRelay.close() with 1,000 endpoints settles within seconds, and leaves no socket or timer
 * of this process behind, when the datastore was killed before it (Redis, PostgreSQL) or when the
 * process is out of file descriptors (its connections dropped, every reconnection failing).
 * On PostgreSQL it also holds the same few connections for 10 endpoints as for 1,000.
 * (The relay delivering to 1,000 endpoints is scale.test.ts.)
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type QueueConnection, WebhookRelay } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from '../../../helpers/postgres.js';
import { startRedis, uniqueName } from '../../../helpers/redis.js';
import { runs, startPostgresWithBullmq } from '../fixture.js';
import { expectNoneLeft, handles } from './handles.js';

const ENDPOINTS = 1_000;
const TIMEOUT = 4_000;
// No event is ever sent to them: the relays here only start and close.
const endpointsOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    url: `http://127.0.0.1:9/ok/${i}`,
    secret: `whsec_${createHash('sha256').update(`endpoint ${i}`).digest('base64')}`,
  }));
/** A relay of ENDPOINTS endpoints on `connection`, under a queue name of its own. */
const relayOn = (connection: QueueConnection, endpoints = ENDPOINTS) =>
  new WebhookRelay({ connection, name: uniqueName('scale'), endpoints: endpointsOf(endpoints), timeout: TIMEOUT });

describe.runIf(runs)('WebhookRelay with 1,000 endpoints on Redis', () => {
  it('close() settles within seconds when the datastore was killed before it, and leaves nothing open', async () => {
    const redis = await startRedis();
    const before = handles();
    const relay = relayOn(redis.connection);
    await relay.ready();
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the connections see it and try again
    const closing = performance.now();
    await relay.close();
    const closedIn = performance.now() - closing;
    console.log(`webhook scale: close() after the datastore was killed: ${Math.round(closedIn)} ms`);
    expect(closedIn).toBeLessThan(5_000);
    const lastTimer = await expectNoneLeft(before);
    console.log(`  no socket left; the last timer of BullMQ and ioredis went ${lastTimer} ms after`);
  }, 30_000);

  // Exhausting this process's descriptors is quick only under a usual limit (ulimit -n).
  const limit = Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
  it.runIf(limit <= 65_536)(
    'close() settles within seconds when the process is out of file descriptors, and leaves nothing open',
    async () => {
      const redis = await startRedis();
      const admin = new Redis(redis.connection);
      const before = handles();
      const relay = relayOn(redis.connection);
      const taken: number[] = [];
      try {
        await relay.ready();
        await admin.ping();
        // Every descriptor taken, then the relay's connections dropped: each reconnection fails (EMFILE).
        for (;;) {
          try {
            taken.push(openSync('/dev/null', 'r'));
          } catch {
            break;
          }
        }
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        await new Promise((resolve) => setTimeout(resolve, 300));
        const closing = performance.now();
        await relay.close();
        const closedIn = performance.now() - closing;
        console.log(`webhook scale: close() out of file descriptors: ${Math.round(closedIn)} ms`);
        expect(closedIn).toBeLessThan(5_000);
      } finally {
        for (const fd of taken) closeSync(fd);
        admin.disconnect();
        await redis.stop();
      }
      const lastTimer = await expectNoneLeft(before);
      console.log(`  no socket left; the last timer of BullMQ and ioredis went ${lastTimer} ms after`);
    },
    30_000,
  );
});

describe.runIf(postgresAvailable())('WebhookRelay with 1,000 endpoints on PostgreSQL', () => {
  it('holds the same few connections for 10 endpoints and for 1,000, and close() settles when the server was killed, leaving nothing open', async () => {
    const db = await startPostgresWithBullmq();
    const count = async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`,
        );
        return Number(rows[0]?.n);
      } finally {
        await client.end();
      }
    };
    const relayOf = (count: number) => relayOn({ postgres: { connectionString: db.url, max: 4 } }, count);
    try {
      const baseline = await count();
      const connectionsOf = async (relay: WebhookRelay) => {
        await relay.ready();
        await new Promise((resolve) => setTimeout(resolve, 500)); // the worker's LISTEN connection too
        return (await count()) - baseline;
      };
      const small = relayOf(10);
      const withTen = await connectionsOf(small);
      await small.close();
      const before = handles();
      const relay = relayOf(ENDPOINTS);
      const withMany = await connectionsOf(relay);
      await db.stop();
      const closing = performance.now();
      await relay.close();
      const closedIn = performance.now() - closing;
      console.log(
        `webhook scale on PostgreSQL: connections of a relay: ${withTen} with 10 endpoints, ${withMany} with ${ENDPOINTS}; close() after the server was killed: ${Math.round(closedIn)} ms`,
      );
      // A pool opens its connections as its work comes, so one moment's count may differ by one
      // between two runs of the same relay; a queue per endpoint would hold thousands.
      expect(Math.abs(withMany - withTen)).toBeLessThanOrEqual(1);
      expect(withMany).toBeLessThan(20);
      expect(closedIn).toBeLessThan(5_000);
      await expectNoneLeft(before);
    } finally {
      await db.stop();
    }
  }, 40_000);
});
