/**
 * The outbox against the faults production brings, on a real PostgreSQL: a caller that is not in
 * a transaction, and every connection of the relaying process terminated by the server
 * (`pg_terminate_backend`, as a restart or a failover does). The relay runs as its own process,
 * set up as an application would set it up, from the built package.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ValidationError } from 'tenant-messaging';
import { MessagingOutbox, MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { fastWorker, text, until } from '../fixture.js';
import { available, useOutboxFixture } from './outbox-fixture.js';

const relayScript = fileURLToPath(new URL('./listen-process.mjs', import.meta.url));
const fx = useOutboxFixture();
const { children, stored } = fx;

/** Adds `params` with `id` in a transaction of its own, and commits. */
async function commitOne(outbox: MessagingOutbox, params: ReturnType<typeof text>, id: string): Promise<void> {
  const client = await fx.pool.connect();
  try {
    await client.query('BEGIN');
    await outbox.add(client, params, { id });
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/**
 * Terminates every connection of the relay's process (its pool's and its queue's, marked by their
 * application_name): what a restart or a failover does to them. (The fleet's own connections are
 * terminated in test/integration/bullmq/faults/postgres.test.ts.)
 */
async function terminateRelay(): Promise<number> {
  const client = new pg.Client({ connectionString: fx.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE application_name = 'outbox-relay-under-test'`,
    );
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

describe.runIf(available)('the outbox against PostgreSQL faults', () => {
  it('refuses a pool, and a client in autocommit, with a ValidationError: nothing is written, and nothing sent', async () => {
    const queue = new MessagingQueue({ connection: fx.f.connection, name: uniqueName('outbox-notx') });
    const outbox = new MessagingOutbox({ queue, table: 'outbox_notx' });
    await outbox.migrate(fx.pool);
    const count = async () => (await fx.pool.query('SELECT count(*)::int AS n FROM outbox_notx')).rows[0].n as number;
    try {
      const fromPool = await outbox.add(fx.pool, text(1), { id: 'pool-1' }).catch((e: unknown) => e);
      expect(fromPool).toBeInstanceOf(ValidationError);
      expect((fromPool as ValidationError).issues[0]).toMatchObject({ path: 'tx' });
      expect((fromPool as Error).message).toMatch(/is a pool.*BEGIN/s);

      const client = await fx.pool.connect();
      try {
        const autocommit = await outbox.add(client, text(2), { id: 'auto-2' }).catch((e: unknown) => e);
        expect(autocommit).toBeInstanceOf(ValidationError);
        expect((autocommit as Error).message).toMatch(/outside a transaction block \(autocommit\).*BEGIN/s);
        // The same client, then in a transaction: accepted, and still one row after a rollback-free commit.
        await client.query('BEGIN');
        await outbox.add(client, text(3), { id: 'tx-3' });
        expect(await client.query('SELECT 1 AS one')).toMatchObject({ rows: [{ one: 1 }] });
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      // A query builder's root handle (no transaction) through the README's adapter: refused too.
      const adapter = { query: (sql: string, values?: unknown[]) => fx.pool.query(sql, values) };
      await expect(outbox.add(adapter, text(4), { id: 'adapter-4' })).rejects.toBeInstanceOf(ValidationError);
      expect((await fx.pool.query('SELECT id FROM outbox_notx ORDER BY id')).rows).toEqual([{ id: 'tx-3' }]);
      expect(await count()).toBe(1);
    } finally {
      await queue.close();
    }
  });

  it('refuses unknown options of the outbox, add and relay before any I/O', async () => {
    const queue = new MessagingQueue({ connection: fx.f.connection, name: uniqueName('outbox-keys') });
    try {
      expect(() => new MessagingOutbox({ queue, tabel: 'x' } as never)).toThrow(/tabel: is not an option; .*table/s);
      const outbox = new MessagingOutbox({ queue, table: 'outbox_keys' });
      await expect(outbox.add(fx.pool, text(1), { ID: 'x' } as never)).rejects.toThrow(
        /ID: is not an option; did you mean id\?/,
      );
      expect(() => outbox.relay({ pool: fx.pool, intervall: 10 } as never)).toThrow(/intervall: is not an option/);
    } finally {
      await queue.close();
    }
  });

  it('the relay process survives every one of its connections terminated, listens again, and relays what was committed meanwhile at once', async () => {
    const name = uniqueName('outbox-terminate');
    const table = 'outbox_terminate';
    const queue = new MessagingQueue({ connection: fx.f.connection, name });
    const outbox = new MessagingOutbox({ queue, table });
    await outbox.migrate(fx.pool);
    const worker = new MessagingWorker(fastWorker(fx.f, name));
    // Polling at a minute: a message relayed within seconds after the terminations was woken by a
    // NOTIFY on a LISTEN made again (or by the look the relay takes when it listens again).
    const child = fork(relayScript, [], {
      env: { ...process.env, PG_URL: fx.url, QUEUE: name, TABLE: table, INTERVAL: '60000' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    children.add(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the relay exited with ${code}:\n${output}`)));
      });
      await commitOne(outbox, { ...text(1), content: `${name} before` }, 'before');
      await until(
        () => stored(`${name} before`) === 1,
        30_000,
        () => `the first message\n${output}`,
      );

      // Two rounds: the second shows a relay that listened again survives losing that connection too.
      // (Each lost LISTEN waits longer before listening again: 2 s, then 4 s, then 8 s.)
      for (let round = 1; round <= 2; round++) {
        expect(await terminateRelay()).toBeGreaterThan(0);
        // Committed while the relay may not be listening: it must still go out soon, and once.
        await commitOne(outbox, { ...text(round), content: `${name} after ${round}` }, `after-${round}`);
        await until(
          () => stored(`${name} after ${round}`) === 1,
          30_000,
          () => `the message committed after termination ${round}\n${output}`,
        );
        expect(child.exitCode).toBeNull();
      }
      expect(output).toMatch(/"level":"warn","message":"outbox relay: the LISTEN connection was lost/);
      // Nothing left to hand off nor to send: the counts below are final (no duplicate can come later).
      await fx.drained(queue, `SELECT count(*)::int AS n FROM ${table}`);
      for (const content of [`${name} before`, `${name} after 1`, `${name} after 2`]) {
        expect(stored(content), content).toBe(1);
      }

      // SIGTERM: the relay closes and the process ends by itself, with nothing left holding it.
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      // A hang detector, not a measure: the process must end by itself (not by the test's timeout).
      const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('hung'), 30_000))]);
      expect(code, output).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 90_000);
});
