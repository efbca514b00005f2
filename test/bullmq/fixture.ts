/** What the BullMQ tests share: a throwaway Redis per file, the sandbox, and small helpers. */
import type { Queue } from 'bullmq';
import { MessagingClient, type SendMessageParams } from 'tenant-messaging';
import type { MessagingUpdate, MessagingWorkerOptions } from 'tenant-messaging/bullmq';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';

export const SENDER = '+15550001001';
export const runs = redisAvailable();

export const text = (i: number, to: string = SANDBOX_PHONES.reads): SendMessageParams => ({
  sender_phone: SENDER,
  to_phone: to,
  type: 'text',
  content: `Queued message ${i}`,
});

export interface Fixture {
  redis: TestRedis;
  sandbox: RunningSandbox;
  client: MessagingClient;
  close(): Promise<void>;
}

export async function startFixture(options: Parameters<typeof startSandbox>[0] = {}): Promise<Fixture> {
  const redis = await startRedis();
  const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 }, ...options });
  const { baseUrl, keys } = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
  return {
    redis,
    sandbox,
    client,
    close: async () => {
      await sandbox.close();
      await redis.stop();
    },
  };
}

/** Worker options for a fast test: short locks, so a crashed job re-runs in seconds. */
export function fastWorker(
  f: Fixture,
  name: string,
  extra: Partial<MessagingWorkerOptions> = {},
): MessagingWorkerOptions {
  return {
    connection: f.redis.connection,
    name,
    client: f.client,
    lockDuration: 5_000,
    stalledInterval: 2_000,
    ...extra,
  };
}

/** Reads updates until `done` says it has seen enough (or the time runs out). */
export async function collectUpdates(
  updates: AsyncIterable<MessagingUpdate>,
  done: (seen: MessagingUpdate[]) => boolean,
  timeoutMs = 15_000,
): Promise<MessagingUpdate[]> {
  const seen: MessagingUpdate[] = [];
  const timer = AbortSignal.timeout(timeoutMs);
  const iterator = updates[Symbol.asyncIterator]();
  try {
    while (!done(seen)) {
      const result = await Promise.race([
        iterator.next(),
        new Promise<never>((_, reject) =>
          timer.addEventListener(
            'abort',
            () => reject(new Error(`updates: timed out with ${JSON.stringify(seen.map((u) => [u.id, u.status]))}`)),
            { once: true },
          ),
        ),
      ]);
      if (result.done) break;
      seen.push(result.value);
    }
  } finally {
    await iterator.return?.();
  }
  return seen;
}

/** Waits until a job has finished (updates are published just before BullMQ records the end). */
export async function finishedJob(raw: Queue, id: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await raw.getJob(id);
    if (job?.finishedOn !== undefined) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
