/**
 * The fleet while its datastore freezes (SIGSTOP) with sends waiting at the fleet gate: a job whose
 * lock expires meanwhile is taken by another worker, and the first must then write nothing and
 * never POST. Each case's freeze starts once a number of sends drawn from its seed are stored and
 * the others are held by the workers (waiting at the gate), and lasts a time drawn from its seed;
 * the invariants are counts: no message stored twice, every message ends with one final status
 * (its update at least once, as every update is), and one reported `sent` is stored.
 */
import { MessagingClient } from 'tenant-messaging';
import {
  MessagingQueue,
  type MessagingUpdate,
  MessagingWorker,
  type MessagingWorkerOptions,
  type QueueConnection,
} from 'tenant-messaging/bullmq';
import { startSandbox } from 'tenant-messaging/sandbox';
import { expect, it } from 'vitest';
import { seededRandom } from '../../../../src/sandbox/faults/random.js';
import { uniqueName } from '../../../helpers/redis.js';
import { storedCounts, text, until } from '../fixture.js';

/** A datastore the run can freeze. */
export interface Freezable {
  readonly connection: QueueConnection;
  pause(): void;
  resume(): void;
}

/** One run: the fleet's limit, its workers' lock, and the seed of the freeze's moment and length. */
export interface FreezeCase {
  readonly requestsPerSecond: number;
  /** BullMQ's lockDuration; undefined: its default (30 s), which the freeze does not outlast. */
  readonly lockDuration: number | undefined;
  readonly messages: number;
  readonly seed: number;
}

/** What a run saw, for the table in the commit and the failure message. */
export interface FreezeResult {
  /** Sends stored when the freeze began, and jobs the workers held then (waiting at the gate, or POSTing). */
  readonly storedAtFreeze: number;
  readonly activeAtFreeze: number;
  readonly freezeMs: number;
  readonly posts: number;
  readonly twice: number;
  readonly finals: Readonly<Record<string, number>>;
  /** Jobs whose worker found, at a write, that another worker had taken them. */
  readonly overtaken: number;
}

const FINAL: readonly MessagingUpdate['status'][] = ['sent', 'failed', 'unknown'];
const WORKERS = 3;
const SLOTS = 4;
/** How often the stalled-job check runs under a short lock: each worker's is due at least once in the freeze. */
const STALLED_INTERVAL = 500;

/** Runs `c` on `store`: sends through 3 workers of 4 slots, freezes the store once, checks the invariants. */
export async function runFreeze(store: Freezable, c: FreezeCase): Promise<FreezeResult> {
  const random = seededRandom(c.seed);
  // Once 1 to a third of the sends are stored (the others then wait at the gate).
  const freezeAfter = 1 + Math.floor(random() * Math.max(1, Math.floor(c.messages / 3)));
  // Under a short lock: past the lock and a stalled check, so every lock held at its start expires
  // and the check that hands the job to another worker is due; under BullMQ's default, 1 to 2 s.
  const freezeMs =
    (c.lockDuration === undefined ? 1_000 : c.lockDuration + STALLED_INTERVAL) + Math.floor(random() * 1_000);
  const sandbox = await startSandbox();
  const { baseUrl, keys } = sandbox.tenants.acme;
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
  const name = uniqueName('freeze');
  const queue = new MessagingQueue({ connection: store.connection, name });
  // The jobs this worker found overtaken: its log says so once, then with a count (logRepeats).
  let overtaken = 0;
  const logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message: string, fields?: { repeated?: number }) => {
      if (/lost its lock/.test(message)) overtaken += fields?.repeated ?? 1;
    },
  };
  const options: MessagingWorkerOptions = {
    connection: store.connection,
    name,
    client,
    concurrency: SLOTS,
    rateLimit: { requestsPerSecond: c.requestsPerSecond },
    logger,
    ...(c.lockDuration === undefined ? {} : { lockDuration: c.lockDuration, stalledInterval: STALLED_INTERVAL }),
  };
  const workers = Array.from({ length: WORKERS }, () => new MessagingWorker(options));
  const finals = new Map<string, MessagingUpdate['status'][]>();
  const reader = new AbortController();
  const reading = (async () => {
    for await (const update of queue.updates({ signal: reader.signal }))
      if (FINAL.includes(update.status)) finals.set(update.id, [...(finals.get(update.id) ?? []), update.status]);
  })();
  reading.catch(() => undefined);
  const contents = Array.from({ length: c.messages }, (_, i) => `${name} ${i}`);
  const ids = contents.map((_, i) => `f-${i}`);
  let storedAtFreeze = 0;
  let activeAtFreeze = 0;
  const what = () =>
    `seed ${c.seed}, freeze after ${freezeAfter} stored (${storedAtFreeze} stored, ${activeAtFreeze} held) for ${freezeMs} ms`;
  try {
    await Promise.all(workers.map((w) => w.ready()));
    await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: ids[i] as string })));
    // The moment: `freezeAfter` stored, and every send left held by a worker (as many as it has slots).
    await until(
      async () => {
        activeAtFreeze = (await queue.counts()).active;
        storedAtFreeze = sandbox.messages('acme').length;
        if (storedAtFreeze >= c.messages) throw new Error(`every send was made before the freeze (${what()})`);
        return (
          storedAtFreeze >= freezeAfter && activeAtFreeze >= Math.min(WORKERS * SLOTS, c.messages - storedAtFreeze)
        );
      },
      60_000,
      () => `${freezeAfter} sends stored, the others held by the workers (${what()})`,
    );
    store.pause();
    try {
      // The freeze's length is the behaviour (a lock outlasted, or not): it must pass in full.
      await new Promise((resolve) => setTimeout(resolve, freezeMs));
    } finally {
      store.resume();
    }
    await until(
      () => ids.every((id) => finals.has(id)),
      60_000,
      () => `final updates for ${finals.size} of ${ids.length} (${what()})`,
    );
    // Closed, the workers make no more requests: a POST still on its way is counted below.
    await Promise.all(workers.map((w) => w.close()));
    const counts = storedCounts(sandbox, contents);
    const result: FreezeResult = {
      storedAtFreeze,
      activeAtFreeze,
      freezeMs,
      posts: counts.reduce((sum, n) => sum + n, 0),
      twice: counts.filter((n) => n > 1).length,
      finals: Object.fromEntries(
        FINAL.map((status) => [status, [...finals.values()].filter((s) => s.includes(status)).length]),
      ),
      overtaken,
    };
    expect(
      counts.filter((n) => n > 1),
      `sent twice (${what()})`,
    ).toEqual([]);
    // Updates are at least once (a worker overtaken after publishing `sent` and before BullMQ
    // recorded the end: the new holder publishes it again, docs/fleet.md), never contradictory.
    expect(
      ids.filter((id) => new Set(finals.get(id)).size !== 1),
      `not one final status each (${what()})`,
    ).toEqual([]);
    expect(
      ids.filter((id, i) => finals.get(id)?.[0] === 'sent' && counts[i] !== 1),
      `reported sent but not stored (${what()})`,
    ).toEqual([]);
    return result;
  } finally {
    store.resume();
    reader.abort();
    await Promise.all(workers.map((w) => w.close()));
    await queue.close();
    await sandbox.close();
  }
}

/**
 * The runs of a datastore's file, each drawing its moment from one of `seeds`: 1/s with locks the
 * freeze outlasts, 20/s with such locks twice, and 1/s and 20/s with BullMQ's default lock. They
 * run at once, so `store` must give each run a datastore of its own (a freeze is the whole server's).
 */
export function itFreezes(store: () => Promise<Freezable>, seeds: readonly [number, number, number, number, number]) {
  const [slow, fast, fastAgain, slowDefault, fastDefault] = seeds;
  const cases: readonly FreezeCase[] = [
    { requestsPerSecond: 1, lockDuration: 1_500, messages: 6, seed: slow },
    { requestsPerSecond: 20, lockDuration: 1_000, messages: 60, seed: fast },
    { requestsPerSecond: 20, lockDuration: 1_000, messages: 60, seed: fastAgain },
    { requestsPerSecond: 1, lockDuration: undefined, messages: 6, seed: slowDefault },
    { requestsPerSecond: 20, lockDuration: undefined, messages: 60, seed: fastDefault },
  ];
  it.concurrent.each(cases)(
    'at $requestsPerSecond/s, lock $lockDuration ms (seed $seed): none sent twice, one final status each',
    async (c) => {
      const result = await runFreeze(await store(), c);
      expect(result.posts).toBeGreaterThan(0);
    },
    120_000,
  );
}
