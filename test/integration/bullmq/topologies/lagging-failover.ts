/**
 * The failover to a lagging replica, as Sentinel and a Cluster test it alike: a producer's sends
 * and the rollbacks reported to it, sends made across the lag and the failover, the enqueues the
 * new primary really lacks, and the check that exactly those were reported.
 */
import type { Queue } from 'bullmq';
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
    /** The id of a content of `contentOf`. */
    idOf: (content: string) => `s-${content.slice(name.length + 1)}`,
    /** The content of every id acknowledged once or more. */
    contents: () => [...new Set(acknowledged)].map(contentOf),
    /**
     * Sends 30 (and waits for one stored), then 15 while `lag` holds the replica back, then fails
     * over: resolves once the replica is promoted.
     */
    async acrossLaggingFailover(
      stored: (content: string) => number,
      lag: () => Promise<void>,
      failover: () => Promise<unknown>,
    ): Promise<void> {
      for (let i = 0; i < 30; i++) await send(`s-${i}`);
      await until(
        () => acknowledged.some((id) => stored(contentOf(id)) === 1),
        30_000,
        () => 'the first sends',
      );
      await lag();
      for (let i = 30; i < 45; i++) {
        await send(`s-${i}`);
        // The producer's pace across the lag (a load shape, not a wait): the workers take some of
        // these sends while the replica lags, as they would in production.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await failover();
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
        30_000,
        () => `reported ${[...reported].join(',')} of lost ${lost.join(',')}`,
      );
      expect([...reported].sort(), 'reported: exactly the lost').toEqual([...lost].sort());
      expect(errorLines(lines).some((line) => /rolled back enqueued sends/.test(line.message))).toBe(true);
    },
  };
}

/**
 * Waits until each of the jobs `ids` is settled: sent (stored by the service), or ended `unknown`,
 * as `settled` says, by the index of `ids`. A mark the promoted replica holds
 * while its give-back was rolled back is reconciled (no log matches: it ends `unknown`, reported
 * and never sent blindly) once its lock expired: tens of seconds on a loaded machine. A timeout
 * names the open jobs, each with its state in `raw` (BullMQ's queue), the log `lines`, and `more()`.
 */
export async function untilEachSettled(
  ids: readonly string[],
  settled: () => boolean[],
  raw: () => Queue,
  lines: readonly RecordedLine[],
  more: () => string = () => '',
): Promise<void> {
  try {
    await until(
      () => settled().every(Boolean),
      100_000,
      () => `sent or unknown: ${settled().map(Number).join('')}`,
    );
  } catch (error) {
    const open = ids.filter((_, i) => !settled()[i]);
    const queue = raw();
    const states: string[] = [];
    try {
      for (const id of open) {
        const job = await queue.getJob(id);
        states.push(
          job
            ? `${id}: ${await job.getState()}, phase ${job.data?.phase}, ${job.attemptsMade} attempts${job.failedReason ? `, ${job.failedReason}` : ''}`
            : `${id}: no job`,
        );
      }
    } finally {
      await queue.close();
    }
    const log = lines.map((line) => `${line.at} ${line.level} ${line.message} ${JSON.stringify(line.fields ?? {})}`);
    throw new Error(`${(error as Error).message}\nopen:\n${states.join('\n')}\n${more()}\nlog:\n${log.join('\n')}`);
  }
}
