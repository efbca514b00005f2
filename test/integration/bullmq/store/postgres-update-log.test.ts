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
import { startPostgresWithBullmq } from '../fixture.js';

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
      // Let the reader create the table and take its position.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const insert = 'INSERT INTO tenant_messaging_update (queue, body) VALUES ($1, $2) RETURNING id';
      const slow = await pool.connect();
      await slow.query('BEGIN');
      const { rows } = await slow.query(insert, [name, body('late')]);
      const lateId = String(rows[0].id);
      for (const id of ['a', 'b', 'c']) await pool.query(insert, [name, body(id)]);
      const until = async (check: () => boolean) => {
        const deadline = Date.now() + 5_000;
        while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      await until(() => seen.length >= 3);
      expect(seen.map((u) => u.id)).toEqual(['a', 'b', 'c']);
      // Committed now, below ids already read.
      await slow.query('COMMIT');
      slow.release();
      await until(() => seen.length >= 4);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen.map((u) => u.id)).toEqual(['a', 'b', 'c', 'late']);
      expect(seen[3]?.eventId).toBe(lateId);
      expect(Number(seen[3]?.eventId)).toBeLessThan(Number(seen[0]?.eventId));
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
