/**
 * WebhookRelay.close() with 1,000 endpoints settles, and leaves no socket or timer of this process
 * behind, when the datastore was killed before it (Redis, PostgreSQL) or when the process is out
 * of file descriptors (its connections dropped, every reconnection failing). That it settles at
 * all is the behaviour: it is given until just before the test's timeout (how long it takes is a
 * figure, not asserted). On PostgreSQL it also holds the same few connections for 10 endpoints as
 * for 1,000. (The relay delivering to 1,000 endpoints is scale.test.ts.)
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type QueueConnection, WebhookRelay } from 'tenant-messaging/bullmq';
import { describe, expect, it, vi } from 'vitest';
import { postgresAvailable } from '../../../helpers/postgres.js';
import { startRedis, uniqueName } from '../../../helpers/redis.js';
import { runs, startPostgresWithBullmq, until } from '../fixture.js';
import { expectNoneLeft, type Handles, handles } from './handles.js';

const ENDPOINTS = 1_000;
const TIMEOUT = 4_000;
/** Each test's timeout; close() is given until a little before it (a hang, not a slow close, fails). */
const TEST_MS = 40_000;
const CLOSE_BOUND_MS = 25_000;

/** Closes `relay`, failing with a clear message if close() has not settled by CLOSE_BOUND_MS. */
async function closeSettles(relay: WebhookRelay): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), CLOSE_BOUND_MS);
  });
  const outcome = await Promise.race([relay.close().then(() => 'closed' as const), hung]).finally(() =>
    clearTimeout(timer),
  );
  expect(outcome, `close() did not settle within ${CLOSE_BOUND_MS} ms`).toBe('closed');
}

/**
 * Runs `body`, then fails if anything was printed to console.error meanwhile: BullMQ prints an
 * 'error' event that no one listens to, and a relay must hear every one of its objects' events.
 */
async function printsNothing(body: () => Promise<void>): Promise<void> {
  const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
  let calls: unknown[][] = [];
  try {
    await body();
  } finally {
    calls = [...printed.mock.calls];
    printed.mockRestore();
  }
  expect(calls.map((call) => call.map(String).join(' '))).toEqual([]);
}

/** Waits until this process holds no more sockets than `before`: the relay's connections saw the end. */
const connectionsDropped = (before: Handles) =>
  until(
    () => handles().sockets <= before.sockets,
    10_000,
    () => `the relay's sockets to drop: ${JSON.stringify({ before, now: handles() })}`,
  );
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
  it(
    'close() settles when the datastore was killed before it, and leaves nothing open',
    () =>
      printsNothing(async () => {
        const redis = await startRedis();
        const before = handles();
        const relay = relayOn(redis.connection);
        await relay.ready();
        await redis.stop();
        // The connections see it and try again: close() then meets them between two attempts.
        await connectionsDropped(before);
        await closeSettles(relay);
        await expectNoneLeft(before);
      }),
    TEST_MS,
  );

  // Exhausting this process's descriptors is quick only under a usual limit (ulimit -n).
  const limit = Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
  it.runIf(limit <= 65_536)(
    'close() settles when the process is out of file descriptors, and leaves nothing open',
    async () => {
      const redis = await startRedis();
      const admin = new Redis(redis.connection);
      await admin.ping();
      // Taken once the admin connection is up: it stays (SKIPME), the relay's go.
      const before = handles();
      const relay = relayOn(redis.connection);
      const taken: number[] = [];
      try {
        await relay.ready();
        // Every descriptor taken, then the relay's connections dropped: each reconnection fails (EMFILE).
        for (;;) {
          try {
            taken.push(openSync('/dev/null', 'r'));
          } catch {
            break;
          }
        }
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        // Every connection of the relay dropped (a reconnection cannot even open a socket).
        await connectionsDropped(before);
        await closeSettles(relay);
      } finally {
        for (const fd of taken) closeSync(fd);
        admin.disconnect();
        await redis.stop();
      }
      await expectNoneLeft(before);
    },
    TEST_MS,
  );
});

describe.runIf(postgresAvailable())('WebhookRelay with 1,000 endpoints on PostgreSQL', () => {
  it(
    'holds the same few connections for 10 endpoints and for 1,000, and close() settles when the server was killed, leaving nothing open',
    () =>
      printsNothing(async () => {
        const db = await startPostgresWithBullmq();
        const sql = async (text: string) => {
          const client = new pg.Client({ connectionString: db.url });
          await client.connect();
          try {
            const { rows } = await client.query(text);
            return Number(rows[0]?.n);
          } finally {
            await client.end();
          }
        };
        const count = () =>
          sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`);
        const listening = () =>
          sql(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE '%LISTEN bullmq%' AND pid <> pg_backend_pid()`,
          );
        const relayOf = (count: number) => relayOn({ postgres: { connectionString: db.url, max: 4 } }, count);
        try {
          const baseline = await count();
          const connectionsOf = async (relay: WebhookRelay) => {
            await relay.ready();
            // The worker's LISTEN connection too: counted once it has listened.
            await until(
              async () => (await listening()) >= 1,
              10_000,
              () => 'a LISTEN connection of the relay',
            );
            return (await count()) - baseline;
          };
          const small = relayOf(10);
          const withTen = await connectionsOf(small);
          await small.close();
          // Its LISTEN connection gone, so that the next relay's is the one waited for.
          await until(
            async () => (await listening()) === 0,
            10_000,
            () => 'the first relay to stop listening',
          );
          const before = handles();
          const relay = relayOf(ENDPOINTS);
          const withMany = await connectionsOf(relay);
          await db.stop();
          await closeSettles(relay);
          // A pool opens its connections as its work comes, so one moment's count may differ by one
          // between two runs of the same relay; a queue per endpoint would hold thousands.
          expect(Math.abs(withMany - withTen)).toBeLessThanOrEqual(1);
          expect(withMany).toBeLessThan(20);
          await expectNoneLeft(before);
        } finally {
          await db.stop();
        }
      }),
    TEST_MS,
  );
});
