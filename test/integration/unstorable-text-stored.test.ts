/**
 * Text that no datastore can hold as given (a NUL, or a lone UTF-16 surrogate), on the paths that
 * store a send (`client.messages.send`'s: unstorable-text.test.ts): refused with a
 * `ValidationError` before anything is touched, in every string field.
 * - `queue.send` on Redis: nothing is enqueued;
 * - `outbox.add` inside the caller's PostgreSQL transaction: the transaction stays usable (their
 *   own statements after it run and commit), and the outbox holds nothing for it. Before the fix,
 *   PostgreSQL's jsonb refused such a value, which aborted the caller's transaction.
 * The same string without the bad character is stored unchanged, as is well-formed text of any
 * script.
 */
import { Queue } from 'bullmq';
import fc from 'fast-check';
import pg from 'pg';
import type { ValidationError } from 'tenant-messaging';
import { MessagingOutbox, MessagingQueue } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgresWithBullmq, type TestPostgres } from '../helpers/postgres.js';
import { redisAvailable, startRedis, type TestRedis, uniqueName } from '../helpers/redis.js';
import {
  BAD_PATHS,
  cases,
  EVERY_FIELD,
  expectRefusal,
  type Kept,
  keptValue,
  paramsOf,
  pathIssue,
  SEED,
  sendWith,
  WORLD_CASES,
} from '../helpers/unstorable-text.js';

describe.runIf(redisAvailable())('queue.send on Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('refuses a NUL or a lone surrogate in any field, enqueueing nothing; the same string without it is stored unchanged', async () => {
    const name = uniqueName('unstorable');
    const queue = new MessagingQueue({ connection: redis.connection, name });
    const raw = new Queue(name, { connection: redis.connection });
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(cases, async (c) => {
          n++;
          const { waiting } = await queue.counts();
          expectRefusal(await queue.send(sendWith(c.field, c.value), { id: `bad-${n}` }).catch((e: unknown) => e), c);
          expect((await queue.counts()).waiting).toBe(waiting);
          expect(await raw.getJob(`bad-${n}`)).toBeUndefined();
          await queue.send(sendWith(c.field, c.control), { id: `good-${n}` });
          expect((await queue.counts()).waiting).toBe(waiting + 1);
          const job = await raw.getJob(`good-${n}`);
          expect(keptValue(c.field, paramsOf(job))).toBe(c.control);
        }),
        { numRuns: EVERY_FIELD.length + 60, seed: SEED, examples: EVERY_FIELD },
      );
      const { waiting } = await queue.counts();
      for (const [, params] of BAD_PATHS) {
        const error = await queue.send(params).catch((e: unknown) => e);
        expect((error as ValidationError).issues).toEqual([pathIssue]);
      }
      expect((await queue.counts()).waiting).toBe(waiting);
      for (const [field, value] of WORLD_CASES) {
        const id = await queue.send(sendWith(field, value));
        const job = await raw.getJob(id);
        expect(keptValue(field, paramsOf(job))).toBe(value);
      }
    } finally {
      await raw.close();
      await queue.close();
    }
  });
});

describe.runIf(postgresAvailable())('outbox.add inside the caller’s PostgreSQL transaction', () => {
  let db: TestPostgres;
  let pool: pg.Pool;
  let queue: MessagingQueue;
  let outbox: MessagingOutbox;
  beforeAll(async () => {
    db = await startPostgresWithBullmq();
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // Idle clients are cut when the cluster stops at the end: not this test's concern.
    pool.on('error', () => undefined);
    queue = new MessagingQueue({
      connection: { postgres: { connectionString: db.url, max: 2 } },
      name: uniqueName('ob'),
    });
    outbox = new MessagingOutbox({ queue, table: 'outbox_unstorable' });
    await outbox.migrate(pool);
    await pool.query('CREATE TABLE notes (id text PRIMARY KEY, body text NOT NULL)');
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await pool?.end();
    await db?.stop();
  });

  /** The params the outbox holds for `id`, or undefined when it holds no row for it. */
  const row = async (id: string): Promise<Kept | undefined> =>
    (await pool.query('SELECT params FROM outbox_unstorable WHERE id = $1', [id])).rows[0]?.params;

  it('PostgreSQL itself refuses such text in jsonb, and the refusal aborts the transaction (why the check exists)', async () => {
    const client = await pool.connect();
    try {
      for (const bad of ['a\0b', 'a\uD800b']) {
        await client.query('BEGIN');
        await expect(client.query('SELECT $1::jsonb', [JSON.stringify({ content: bad })])).rejects.toThrow();
        await expect(client.query('SELECT 1')).rejects.toThrow(/current transaction is aborted/);
        await client.query('ROLLBACK');
      }
    } finally {
      client.release();
    }
  });

  it('refuses a NUL or a lone surrogate in any field; the transaction goes on and commits; the control is stored unchanged', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        n++;
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          // The refused add sends the transaction nothing at all.
          const sent: string[] = [];
          const spy = {
            query: (text: string, values?: unknown[]) => {
              sent.push(text);
              return client.query(text, values);
            },
          };
          expectRefusal(
            await outbox.add(spy, sendWith(c.field, c.value), { id: `bad-${n}` }).catch((e: unknown) => e),
            c,
          );
          expect(sent).toEqual([]);
          // The caller's transaction is untouched: their own statements run, and the control goes in.
          expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
          await client.query('INSERT INTO notes VALUES ($1, $2)', [`note-${n}`, c.control]);
          await outbox.add(client, sendWith(c.field, c.control), { id: `good-${n}` });
          await client.query('COMMIT');
        } finally {
          client.release();
        }
        expect((await pool.query('SELECT body FROM notes WHERE id = $1', [`note-${n}`])).rows).toEqual([
          { body: c.control },
        ]);
        expect(await row(`bad-${n}`)).toBeUndefined();
        const kept = await row(`good-${n}`);
        expect(kept && keptValue(c.field, kept)).toBe(c.control);
      }),
      { numRuns: EVERY_FIELD.length + 60, seed: SEED, examples: EVERY_FIELD },
    );
  });

  it('stores well-formed text of every script unchanged, and refuses a path it cannot store', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const [name, params] of BAD_PATHS) {
        const error = await outbox.add(client, params, { id: `path-${name}` }).catch((e: unknown) => e);
        expect((error as ValidationError).issues).toEqual([pathIssue]);
      }
      for (const [field, value] of WORLD_CASES)
        await outbox.add(client, sendWith(field, value), { id: `world-${field}` });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    for (const [field, value] of WORLD_CASES) {
      const kept = await row(`world-${field}`);
      expect(kept && keptValue(field, kept)).toBe(value);
    }
    for (const [name] of BAD_PATHS) expect(await row(`path-${name}`)).toBeUndefined();
  });
});
