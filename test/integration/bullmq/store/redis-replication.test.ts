/**
 * What a Redis store answers when asked whether a send's in-flight mark may go (its POST), around
 * the moments a failover makes dangerous, on a real primary and replica (store/README.md):
 * - with a replica that holds the mark: `confirmed`;
 * - a replica that just dropped out (Sentinel may still promote it, with less than the primary
 *   has): not `no-replica`, but `unconfirmed` once WAIT timed out;
 * - after a failover (a new replication id), on a primary with no replica: the mark is looked for
 *   there, since it may have been written on the primary that failed: `missing` when it is gone;
 * - a Redis that never had a replica nor a failover: `no-replica` at once.
 * A new replication id is made with DEBUG CHANGE-REPL-ID, as a promotion makes one.
 */
import * as bullmq from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { backendOf } from '../../../../src/bullmq/store/backend.js';
import { storeOf } from '../../../../src/bullmq/store/store.js';
import { startRedis, type TestRedis, uniqueName } from '../../../helpers/redis.js';
import { runs, until } from '../fixture.js';

const MARK = { phase: 'in-flight', startedAt: 1_764_000_000_000 };
const WAIT = { replicas: 1, timeout: 300 };
const servers: TestRedis[] = [];
const clients: Redis[] = [];
const queues: bullmq.Queue[] = [];

afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.close().catch(() => undefined);
  for (const client of clients.splice(0)) client.disconnect();
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function primaryWith(replica: boolean) {
  const primary = await startRedis({ args: ['--enable-debug-command', 'yes'] });
  servers.push(primary);
  const client = new Redis({ host: '127.0.0.1', port: primary.port, maxRetriesPerRequest: null });
  clients.push(client);
  const replicas = async () => Number(/connected_slaves:(\d+)/.exec(await client.info('replication'))?.[1]);
  let follower: TestRedis | undefined;
  if (replica) {
    follower = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    servers.push(follower);
    await until(
      async () => /slave0:.*state=online/.test(await client.info('replication')),
      10_000,
      () => 'the replica online',
    );
  }
  // The store of a queue, as the queue and the worker make one.
  const connection = { host: '127.0.0.1', port: primary.port, maxRetriesPerRequest: null };
  const queue = new bullmq.Queue(uniqueName('replication'), { connection });
  queue.on('error', () => undefined);
  queues.push(queue);
  const replication = storeOf(bullmq, backendOf(bullmq, connection), queue).replication({});
  /** A job as BullMQ stores it: its data, JSON, in the job's hash. */
  const store = (id: string, data: object) => client.hset(queue.toKey(id), 'data', JSON.stringify(data));
  const drop = (id: string) => client.del(queue.toKey(id));
  // The time passing is the behaviour: the store reads INFO at most once a second, so the next
  // reading is a new one.
  const nextReading = () => new Promise((resolve) => setTimeout(resolve, 1_100));
  /** How often the primary ran each of `commands` (INFO commandstats): what the store asked of it. */
  const calls = async (commands: readonly string[]) => {
    const stats = await client.info('commandstats');
    return commands.map((command) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0));
  };
  return { client, replicas, follower, replication, store, drop, nextReading, calls };
}

describe.runIf(runs)('a Redis store asked whether an in-flight mark may go', () => {
  it('confirmed on a replica; unconfirmed when the replica just dropped out; missing after a failover when the new primary lacks it', async () => {
    const { client, replicas, follower, replication, store, drop, nextReading } = await primaryWith(true);
    try {
      await store('1', { params: {}, ...MARK });
      // A replica just synced may take longer than WAIT's 300 ms to acknowledge at first (CI's
      // loaded Node 22 run saw it): asked again until it does.
      let answer = '';
      await until(
        async () => {
          answer = await replication.confirm('1', MARK, WAIT);
          return answer === 'confirmed';
        },
        10_000,
        () => `confirmed by the replica, answered ${answer}`,
      );

      // The replica drops out: the primary counts none, yet Sentinel could promote it.
      await follower?.stop();
      await until(
        async () => (await replicas()) === 0,
        10_000,
        () => 'the replica gone from INFO',
      );
      await nextReading();
      expect(await replication.confirm('1', MARK, WAIT)).toBe('unconfirmed');

      // A failover: a new replication id, and a primary without the mark (it was written on the old one).
      await client.call('DEBUG', 'CHANGE-REPL-ID');
      await drop('1');
      await store('2', { params: {}, ...MARK });
      await nextReading();
      expect(await replication.confirm('1', MARK, WAIT)).toBe('missing');
      // A mark the new primary holds may go: no replica is left to roll it back to.
      expect(await replication.confirm('2', MARK, WAIT)).toBe('no-replica');
      // A job whose data lacks the mark (an older write) is missing too.
      await store('3', { params: {}, phase: 'queued' });
      expect(await replication.confirm('3', MARK, WAIT)).toBe('missing');
    } finally {
      await replication.close();
    }
  }, 30_000);

  it('a Redis that never had a replica nor a failover answers no-replica at once, without a look', async () => {
    const { replication, calls } = await primaryWith(false);
    try {
      // At once, without a look: no WAIT and no script (the mark is not looked for). Counted on
      // the server, not timed: a loaded machine cannot make a count wrong.
      const LOOKS = ['wait', 'eval', 'evalsha', 'fcall'];
      const before = await calls(LOOKS);
      expect(await replication.confirm('absent', MARK, WAIT)).toBe('no-replica');
      expect(await calls(LOOKS)).toEqual(before);
    } finally {
      await replication.close();
    }
  });
});
