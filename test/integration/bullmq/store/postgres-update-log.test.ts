/**
 * `queue.updates()` on PostgreSQL against the class of bug that lost one `sent` update in 500 in
 * the fleet test on BullMQ's event table: ids come from a sequence when a row is inserted, so two
 * publishers can commit them out of order (101 visible before 100). Here a publisher's transaction
 * takes an id and commits it only after later ids were read: the reader must still yield it,
 * once, and yield every other update once. Real PostgreSQL, skipped without it (failed under CI).
 */
import pg from 'pg';
import { MessagingQueue, type MessagingUpdate } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, type TestPostgres } from '../../../helpers/postgres.js';
import { uniqueName } from '../../../helpers/redis.js';
import { startPostgresWithBullmq, until } from '../fixture.js';

const runs = postgresAvailable();
let db: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  if (!runs) return;
  db = await startPostgresWithBullmq();
  pool = new pg.Pool({ connectionString: db.url, max: 4, options: '-c search_path=bullmq' });
  pool.on('error', () => undefined);
}, 30_000);
afterAll(async () => {
  await pool?.end();
  await db?.stop();
});

/** An update row as a worker publishes it (update-log-postgres.ts). */
const body = (id: string, status = 'sent') => JSON.stringify({ id, status, at: new Date().toISOString() });

describe.runIf(runs)('updates() on PostgreSQL', () => {
  it('yields an update committed after later ones were read, and every update once', async () => {
    const name = uniqueName('late');
    // The pool form: a pg.Pool whose search_path starts with BullMQ's schema.
    const queue = new MessagingQueue({ connection: { postgres: pool }, name });
    const seen: MessagingUpdate[] = [];
    const reading = new AbortController();
    const updates = queue.updates({ signal: reading.signal });
    const collecting = (async () => {
      for await (const update of updates) seen.push(update);
    })();
    try {
      // The reader has created the table and taken its position once it yields an update published
      // after it began: a probe, published until the table is there and it is read.
      const insert = 'INSERT INTO tenant_messaging_update (queue, body) VALUES ($1, $2) RETURNING id';
      await until(
        async () => {
          if (seen.some((u) => u.id === 'probe')) return true;
          await pool.query(insert, [name, body('probe')]).catch(() => undefined); // no table yet: again
          return false;
        },
        30_000,
        () => 'the reader to read a probe',
      );
      // The updates the test reads: the probes (one or more were published) left aside.
      const read = () => seen.filter((u) => u.id !== 'probe');
      const slow = await pool.connect();
      await slow.query('BEGIN');
      const { rows } = await slow.query(insert, [name, body('late')]);
      const lateId = String(rows[0].id);
      for (const id of ['a', 'b', 'c']) await pool.query(insert, [name, body(id)]);
      await until(
        () => read().length >= 3,
        30_000,
        () => `the three committed updates, saw ${read().map((u) => u.id)}`,
      );
      expect(read().map((u) => u.id)).toEqual(['a', 'b', 'c']);
      // Committed now, below ids already read.
      await slow.query('COMMIT');
      slow.release();
      // Then one more, after it: once it is read, 'late' was read exactly once before it (a second
      // copy of 'late' would come between, as the reader goes forward).
      await until(
        () => read().some((u) => u.id === 'late'),
        30_000,
        () => `the late update, saw ${read().map((u) => u.id)}`,
      );
      await pool.query(insert, [name, body('after')]);
      await until(
        () => read().some((u) => u.id === 'after'),
        30_000,
        () => `the update after it, saw ${read().map((u) => u.id)}`,
      );
      expect(read().map((u) => u.id)).toEqual(['a', 'b', 'c', 'late', 'after']);
      expect(read()[3]?.eventId).toBe(lateId);
      expect(Number(read()[3]?.eventId)).toBeLessThan(Number(read()[0]?.eventId));
    } finally {
      reading.abort();
      await collecting;
      await queue.close();
    }
  });

  it("a pg.Pool without BullMQ's schema on its search_path is refused with what to do, not BullMQ's SQL error", async () => {
    const bare = new pg.Pool({ connectionString: db.url, max: 2 });
    const queue = new MessagingQueue({ connection: { postgres: bare }, name: uniqueName('bare') });
    try {
      const error = await queue
        .send({ sender_phone: '+15550001001', to_phone: '+15550001002', type: 'text', content: 'x' })
        .catch((e: unknown) => e);
      expect(String(error)).toMatch(/search_path/);
    } finally {
      await queue.close();
      await bare.end();
    }
  });
});
