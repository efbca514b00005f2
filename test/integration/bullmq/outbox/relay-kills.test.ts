/**
 * The outbox's crash test: 200 committed and 200 rolled-back transactions, the relaying process
 * killed with SIGKILL between claiming rows and adding jobs, and again between adding jobs and
 * deleting rows: exactly the 200 committed messages are stored by the sandbox, each once.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MessagingOutbox, MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { fastWorker, storedCounts, text, until } from '../fixture.js';
import { available, useOutboxFixture } from './outbox-fixture.js';

const relayScript = fileURLToPath(new URL('./relay-process.mjs', import.meta.url));
const fx = useOutboxFixture();
const { children, transaction } = fx;

describe.runIf(available)('MessagingOutbox on PostgreSQL, its relay killed', () => {
  it('200 committed among 200 rolled back, the relay killed after claiming and after adding: the 200 committed stored once each', async () => {
    // 200, not 500: one worker on PostgreSQL sends them well within the wait on a loaded machine;
    // the hand-off and its two kill points are the same.
    const COMMITTED = 200;
    const name = uniqueName('outbox-crash');
    const queue = new MessagingQueue({ connection: fx.f.connection, name });
    const outbox = new MessagingOutbox({ queue });
    await outbox.migrate(fx.pool);
    const url = (fx.f.connection as { postgres: { connectionString: string } }).postgres.connectionString;
    const worker = new MessagingWorker(fastWorker(fx.f, name, { concurrency: 8 }));
    const content = (i: number) => `Outbox ${name} ${i}`;
    const parity = (odd: 0 | 1) => Array.from({ length: COMMITTED }, (_, k) => content(2 * k + odd));
    const evenContents = parity(0);
    const startRelay = async (hang: string) => {
      const child = fork(relayScript, {
        env: { ...process.env, PG_URL: url, QUEUE: name, HANG: hang },
        execPath: process.execPath,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.add(child);
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the relay exited (${code}) before it was ready`)));
      });
      return child;
    };
    const killWhen = async (child: ChildProcess, said: string) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the relay never said ${said}`)), 20_000);
        child.on('message', (message) => {
          if (message !== said) return;
          clearTimeout(timer);
          resolve();
        });
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    };
    try {
      // A committed transaction and a rolled-back one in turn, 8 at a time.
      for (let start = 0; start < 2 * COMMITTED; start += 8) {
        await Promise.all(
          Array.from({ length: 8 }, (_, k) => start + k).map((i) =>
            transaction(i % 2 === 0, async (client) => {
              await outbox.add(client, { ...text(i), content: content(i) }, { id: `o-${i}` });
            }),
          ),
        );
      }
      // Killed between claiming rows and adding jobs, then between adding jobs and deleting rows.
      const first = await startRelay('claim');
      await killWhen(first, 'claimed');
      const second = await startRelay('delete');
      await killWhen(second, 'added');
      const third = await startRelay('');
      await until(
        () => storedCounts(fx.f.sandbox, evenContents).every((n) => n >= 1),
        60_000,
        () => `${storedCounts(fx.f.sandbox, evenContents).filter((n) => n >= 1).length} of ${COMMITTED} stored`,
      );
      // Nothing left to hand off nor to send: the counts below are final (no duplicate can come later).
      await fx.drained(queue, `SELECT count(*)::int AS n FROM public.tenant_messaging_outbox WHERE queue = '${name}'`);
      const even = storedCounts(fx.f.sandbox, evenContents);
      const odd = storedCounts(fx.f.sandbox, parity(1));
      expect(even.filter((n) => n !== 1)).toEqual([]);
      expect(odd.filter((n) => n !== 0)).toEqual([]);
      const { rows } = await fx.pool.query(
        `SELECT count(*)::int AS n FROM public.tenant_messaging_outbox WHERE queue = $1`,
        [name],
      );
      expect(rows[0].n).toBe(0);
      const exited = new Promise((resolve) => third.once('exit', resolve));
      third.kill('SIGTERM');
      await exited;
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 120_000);
});
