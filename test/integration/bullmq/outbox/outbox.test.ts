/**
 * The transactional outbox (`MessagingOutbox`) with a real PostgreSQL, the queue in the same
 * database and a worker sending to the sandbox: a message added in a committed transaction is
 * sent once, in a rolled-back one never; the same id added twice (in one transaction or two) is
 * sent once; bad parameters throw `ValidationError` before the transaction is touched. The relay
 * killed mid-hand-off is relay-kills.test.ts.
 */
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { ValidationError } from 'tenant-messaging';
import { MessagingOutbox, MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { fastWorker, text, until } from '../fixture.js';
import { available, useOutboxFixture } from './outbox-fixture.js';

const fx = useOutboxFixture();
const { stored, transaction } = fx;

describe.runIf(available)('MessagingOutbox on PostgreSQL', () => {
  it('sends what was committed once, nothing rolled back, one send per id; bad params throw before the transaction is touched', async () => {
    const name = uniqueName('outbox');
    const queue = new MessagingQueue({ connection: fx.f.connection, name });
    const outbox = new MessagingOutbox({ queue, table: 'outbox_first', schema: 'app' });
    await outbox.migrate(fx.pool);
    await outbox.migrate(fx.pool); // idempotent
    const worker = new MessagingWorker(fastWorker(fx.f, name));
    const relay = outbox.relay({ pool: fx.pool, interval: 200 });
    try {
      await fx.pool.query('CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY, status text)');
      await transaction(true, async (client) => {
        await client.query(`INSERT INTO orders VALUES (1, 'shipped')`);
        await outbox.add(client, text(1), { id: 'order-1-shipped' });
        // The same id again in the same transaction: still one row, one send.
        await outbox.add(client, text(1), { id: 'order-1-shipped' });
      });
      await transaction(false, async (client) => {
        await client.query(`INSERT INTO orders VALUES (2, 'shipped')`);
        await outbox.add(client, text(2), { id: 'order-2-shipped' });
      });
      await until(
        () => stored('Queued message 1') === 1,
        30_000,
        () => 'the committed message',
      );
      // The same id in a later transaction, after the first was handed off: sent once still.
      await transaction(true, async (client) => {
        await outbox.add(client, text(1), { id: 'order-1-shipped' });
      });
      // Nothing left to hand off nor to send: what is stored now is final.
      await fx.drained(queue, 'SELECT count(*)::int AS n FROM app.outbox_first');
      expect(stored('Queued message 1')).toBe(1);
      expect(stored('Queued message 2')).toBe(0);
      expect((await fx.pool.query('SELECT count(*)::int AS n FROM orders WHERE id = 2')).rows[0].n).toBe(0);

      // Bad params: ValidationError, and the transaction was never queried (it is still usable).
      const client = await fx.pool.connect();
      const calls: string[] = [];
      const spy = {
        query: (sql: string, values?: unknown[]) => {
          calls.push(sql);
          return client.query(sql, values);
        },
      };
      try {
        await spy.query('BEGIN');
        const bad = await outbox
          .add(spy, { sender_phone: 'not a phone', to_phone: '+15550001002', type: 'text', content: '' })
          .catch((e: unknown) => e);
        expect(bad).toBeInstanceOf(ValidationError);
        const badId = await outbox.add(spy, text(3), { id: 'a:b' }).catch((e: unknown) => e);
        expect(badId).toBeInstanceOf(ValidationError);
        expect(calls).toEqual(['BEGIN']);
        await spy.query('COMMIT');
      } finally {
        client.release();
      }
      // Not a queryable at all, and bad relay options: ValidationError too.
      await expect(outbox.add({} as never, text(4))).rejects.toBeInstanceOf(ValidationError);
      expect(() => outbox.relay({ pool: {} as never })).toThrow(ValidationError);
      expect(() => new MessagingOutbox({ queue, table: 'drop table' })).toThrow(ValidationError);
      expect(outbox.sql).toContain('CREATE TABLE IF NOT EXISTS "app"."outbox_first"');
    } finally {
      await relay.close();
      await worker.close();
      await queue.close();
    }
  });

  it('a commit that lands while a hand-off is in progress wakes the relay (no polling to fall back on)', async () => {
    const name = uniqueName('outbox-wake');
    const queue = new MessagingQueue({ connection: fx.f.connection, name });
    const outbox = new MessagingOutbox({ queue, table: 'outbox_wake' });
    await outbox.migrate(fx.pool);
    const raw = fx.f.raw(name);
    // The relay's pool holds its first DELETE (a slow hand-off) until the test lets it go.
    let inHandOff: () => void = () => undefined;
    const handingOff = new Promise<void>((resolve) => {
      inHandOff = resolve;
    });
    let letGo: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let held = false;
    // Resolves once the relay's LISTEN has been answered: a NOTIFY from then on reaches it.
    let listened: () => void = () => undefined;
    const listening = new Promise<void>((resolve) => {
      listened = resolve;
    });
    const slowPool = {
      connect: async () => {
        const client = await fx.pool.connect();
        const query = client.query.bind(client) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
        return Object.assign(Object.create(client) as pg.PoolClient, {
          query: async (text: string, values?: unknown[]) => {
            if (!held && text.startsWith('DELETE FROM')) {
              held = true;
              inHandOff();
              await released;
            }
            const result = await query(text, values);
            if (text.startsWith('LISTEN ')) listened();
            return result;
          },
          release: (error?: Error | boolean) => client.release(error),
          on: client.on.bind(client),
        });
      },
    };
    // An interval of a minute: only a NOTIFY can move the second message within the test's time.
    const relay = outbox.relay({ pool: slowPool, interval: 60_000 });
    try {
      await listening;
      await transaction(true, (client) => outbox.add(client, text(1), { id: 'first' }).then(() => undefined));
      await handingOff;
      await transaction(true, (client) => outbox.add(client, text(2), { id: 'during' }).then(() => undefined));
      letGo();
      await until(
        async () => (await raw.getJob('during')) !== undefined,
        30_000,
        () => 'the message committed during the hand-off',
      );
    } finally {
      letGo();
      await relay.close();
      await raw.close();
      await queue.close();
    }
  });

  it('through Kysely: a transaction that commits sends its message, one that throws sends nothing', async () => {
    const name = uniqueName('outbox-kysely');
    const queue = new MessagingQueue({ connection: fx.f.connection, name });
    const outbox = new MessagingOutbox({ queue, table: 'outbox_kysely' });
    await outbox.migrate(fx.pool);
    const db = new Kysely<{ orders: { id: number; status: string } }>({
      dialect: new PostgresDialect({ pool: fx.pool }),
    });
    const worker = new MessagingWorker(fastWorker(fx.f, name));
    const relay = outbox.relay({ pool: fx.pool, interval: 200 });
    try {
      await fx.pool.query('CREATE TABLE IF NOT EXISTS orders (id int PRIMARY KEY, status text)');
      const ship = (id: number, fail: boolean) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('orders').values({ id, status: 'shipped' }).execute();
          // The adapter README gives: Kysely runs the outbox's SQL in this same transaction.
          const tx = { query: (sql: string, values?: unknown[]) => trx.executeQuery(CompiledQuery.raw(sql, values)) };
          await outbox.add(tx, { ...text(id), content: `Kysely ${name} ${id}` }, { id: `kysely-${id}` });
          if (fail) throw new Error('the business change failed after the message was added');
        });
      await ship(501, false);
      await expect(ship(502, true)).rejects.toThrow('business change failed');
      await until(
        () => stored(`Kysely ${name} 501`) === 1,
        30_000,
        () => 'the committed message',
      );
      // Nothing left to hand off nor to send: the rolled-back message can never go.
      await fx.drained(queue, 'SELECT count(*)::int AS n FROM outbox_kysely');
      expect(stored(`Kysely ${name} 502`)).toBe(0);
      expect((await fx.pool.query('SELECT count(*)::int AS n FROM orders WHERE id = 502')).rows[0].n).toBe(0);
    } finally {
      await relay.close();
      await worker.close();
      await queue.close();
    }
  });
});
