/**
 * The failover to a lagging replica, as Sentinel and a Cluster test it alike: a producer's sends
 * and the rollbacks reported to it, sends made across the lag and the failover, the enqueues the
 * new primary really lacks, and the check that exactly those were reported.
 */
import { Redis } from 'ioredis';
import { DatastoreError, type MessagingQueue } from 'tenant-messaging/bullmq';
import { expect } from 'vitest';
import { errorLines, type RecordedLine, text, until } from '../fixture.js';

/** Whether the server on `port` holds each key, asked directly (`readOnly`: a Cluster replica answers for itself). */
export async function holds(port: number, keys: string[], options: { readOnly?: boolean } = {}): Promise<boolean[]> {
  const direct = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1, ...options });
  try {
    await direct.connect();
    return await Promise.all(keys.map(async (key) => (await direct.exists(key)) === 1));
  } finally {
    direct.disconnect();
  }
}

/** The sends of queue `name` (ids `s-<n>`, content `<name> <n>`): what was acknowledged, and what was reported rolled back. */
export function sendLedger(queue: MessagingQueue, name: string) {
  const contentOf = (id: string) => `${name} ${Number(id.slice(2))}`;
  const acknowledged: string[] = [];
  const reported = new Set<string>();
  const hear = (error: unknown) => {
    if (!(error instanceof DatastoreError) || error.reason !== 'rolled-back') throw error;
    for (const id of error.ids) reported.add(id);
  };
  /** One send; a rollback reported to it is noted, and the send (which did nothing) made again. */
  const send = async (id: string) => {
    for (let tries = 0; tries < 3; tries++) {
      try {
        acknowledged.push(await queue.send({ ...text(0), content: contentOf(id) }, { id }));
        return;
      } catch (error) {
        hear(error);
      }
    }
  };
  return {
    acknowledged,
    reported,
    hear,
    send,
    contentOf,
    /** The content of every id acknowledged once or more. */
    contents: () => [...new Set(acknowledged)].map(contentOf),
    /**
     * Sends 30 (and waits for one stored), then 15 while `lag` holds the replica back, then fails
     * over: resolves with when the failover struck and how long the promotion took.
     */
    async acrossLaggingFailover(
      stored: (content: string) => number,
      lag: () => Promise<void>,
      failover: () => Promise<number>,
    ): Promise<{ struck: number; failoverMs: number }> {
      for (let i = 0; i < 30; i++) await send(`s-${i}`);
      await until(
        () => acknowledged.some((id) => stored(contentOf(id)) === 1),
        10_000,
        () => 'the first sends',
      );
      await lag();
      for (let i = 30; i < 45; i++) {
        await send(`s-${i}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const struck = Date.now();
      return { struck, failoverMs: await failover() };
    },
    /** The acknowledged ids the server on `port` (the new primary) does not hold: what the failover really rolled back. */
    async rolledBack(port: number, keyOf: (id: string) => string, options: { readOnly?: boolean } = {}) {
      const held = await holds(port, acknowledged.map(keyOf), options);
      return acknowledged.filter((_, i) => !held[i]);
    },
    /**
     * Expects the rollback to have lost some enqueues (`lost`), every one of them reported to the
     * next call (counts() checks as send() does) and no other, and logged (`lines`, a recorder's).
     */
    async expectReported(lost: string[], lines: readonly RecordedLine[]): Promise<void> {
      expect(lost.length, 'the lag rolled back some enqueues').toBeGreaterThan(0);
      for (let i = 45; i < 50; i++) await send(`s-${i}`);
      await until(
        async () => {
          await queue.counts().catch(hear);
          return lost.every((id) => reported.has(id));
        },
        15_000,
        () => `reported ${[...reported].join(',')} of lost ${lost.join(',')}`,
      );
      expect([...reported].sort(), 'reported: exactly the lost').toEqual([...lost].sort());
      expect(errorLines(lines).some((line) => /rolled back enqueued sends/.test(line.message))).toBe(true);
    },
  };
}
