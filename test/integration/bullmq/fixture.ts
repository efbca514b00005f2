/**
 * What the BullMQ tests share: a throwaway Redis (or PostgreSQL) per file, the sandbox, and small
 * helpers.
 */
import { createPostgresBackend, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { MessagingClient, type SendMessageParams } from 'tenant-messaging';
import type { MessagingQueue, MessagingUpdate, MessagingWorkerOptions, QueueConnection } from 'tenant-messaging/bullmq';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { expect } from 'vitest';
import { postgresAvailable, startPostgresWithBullmq } from '../../helpers/postgres.js';
import { redisAvailable, startRedis, type TestRedis } from '../../helpers/redis.js';
import { dumpRedis } from '../../helpers/redis-dump.js';

export const SENDER = '+15550001001';
export const runs = redisAvailable();

/** The datastores a queue can live in, and whether this machine can run each. */
export const BACKENDS = [
  ['redis', runs],
  ['postgres', postgresAvailable()],
] as const;
export type BackendName = (typeof BACKENDS)[number][0];
export { startPostgresWithBullmq };

export const text = (i: number, to: string = SANDBOX_PHONES.reads): SendMessageParams => ({
  sender_phone: SENDER,
  to_phone: to,
  type: 'text',
  content: `Queued message ${i}`,
});

/** A datastore, the sandbox and a client: what every queue test needs, on either backend. */
export interface BackendFixture {
  readonly backend: BackendName;
  /** The queue connection, as a user gives it. */
  readonly connection: QueueConnection;
  sandbox: RunningSandbox;
  client: MessagingClient;
  /** BullMQ's own queue of that name on the same datastore: to look at jobs as they are stored. */
  raw(name: string): Queue;
  /** Everything the datastore holds, as one string (every key and value; every row of every table). */
  dump(): Promise<string>;
  /** Runs SQL (PostgreSQL) or a command (Redis: `[command, ...args]`) on the datastore. */
  run(command: string | string[], values?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface Fixture extends BackendFixture {
  redis: TestRedis;
}

type SandboxOptions = Parameters<typeof startSandbox>[0];

/**
 * BullMQ's own queues a test opens to look at jobs, each closed with the datastore (`closeAll`),
 * whether the test closed it or not: one left open reconnected forever once its Redis stopped,
 * and BullMQ, unheard, printed each failure into whichever test file ran next in the worker.
 */
export function rawQueues(open: (name: string) => Queue) {
  const opened = new Set<Queue>();
  return {
    raw(name: string): Queue {
      const queue = open(name);
      // Its failures reach the test's own calls; the event would only repeat them.
      queue.on('error', () => undefined);
      opened.add(queue);
      return queue;
    },
    closeAll: () => Promise.all([...opened].map((queue) => queue.close().catch(() => undefined))),
  };
}

async function startSandboxAndClient(options: SandboxOptions) {
  const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 }, ...options });
  const { baseUrl, keys } = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  const client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
  return { sandbox, client };
}

export async function startFixture(options: SandboxOptions = {}): Promise<Fixture> {
  const redis = await startRedis();
  const { sandbox, client } = await startSandboxAndClient(options);
  const queues = rawQueues((name) => new Queue(name, { connection: redis.connection }));
  return {
    backend: 'redis',
    connection: redis.connection,
    redis,
    sandbox,
    client,
    raw: queues.raw,
    dump: () => dumpRedis(redis.port),
    run: async (command) => {
      const client = new Redis({ host: '127.0.0.1', port: redis.port });
      try {
        const [name, ...args] = command as string[];
        return await client.call(name as string, ...args);
      } finally {
        client.disconnect();
      }
    },
    close: async () => {
      await queues.closeAll();
      await sandbox.close();
      await redis.stop();
    },
  };
}

/** The fixture on either backend: Redis, or PostgreSQL through a connection string (a pool per BullMQ object). */
export async function startBackendFixture(backend: BackendName, options: SandboxOptions = {}): Promise<BackendFixture> {
  if (backend === 'redis') return startFixture(options);
  const db = await startPostgresWithBullmq();
  const { sandbox, client } = await startSandboxAndClient(options);
  const postgres = { connectionString: db.url, max: 4 };
  const queues = rawQueues(
    (name) => new Queue(name, { connection: postgres }, createPostgresBackend) as unknown as Queue,
  );
  const sql = async (text: string, values?: unknown[]) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
  return {
    backend,
    connection: { postgres },
    run: (command, values) => sql(command as string, values),
    dump: async () => {
      const { rows: tables } = await sql(
        `SELECT format('%I.%I', table_schema, table_name) AS t FROM information_schema.tables
          WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
      );
      const parts: string[] = [];
      for (const { t } of tables) {
        parts.push(t);
        const { rows } = await sql(`SELECT row_to_json(x)::text AS r FROM ${t} x`);
        for (const { r } of rows) parts.push(r);
      }
      return parts.join('\n');
    },
    sandbox,
    client,
    raw: queues.raw,
    close: async () => {
      await queues.closeAll();
      await sandbox.close();
      await db.stop();
    },
  };
}

/** Worker options for a fast test: short locks, so a crashed job re-runs in seconds. */
export function fastWorker(
  f: BackendFixture,
  name: string,
  extra: Partial<MessagingWorkerOptions> = {},
): MessagingWorkerOptions {
  return {
    connection: f.connection,
    name,
    client: f.client,
    lockDuration: 5_000,
    stalledInterval: 2_000,
    ...extra,
  };
}

/**
 * Reads updates until `done` says it has seen enough (or the time runs out: a hang detector, under
 * the test's timeout, not a measure; a busy machine may take many seconds).
 */
export async function collectUpdates(
  updates: AsyncIterable<MessagingUpdate>,
  done: (seen: MessagingUpdate[]) => boolean,
  timeoutMs = 45_000,
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
export async function finishedJob(raw: Queue, id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await raw.getJob(id);
    if (job?.finishedOn !== undefined) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One line a `recorder()` logger kept: its level, message and fields, and when (ms since the recorder was made). */
export interface RecordedLine {
  readonly level: string;
  readonly message: string;
  readonly fields?: Record<string, unknown>;
  readonly at: number;
}

/** A logger that keeps its lines, for a test to read (and print when it fails). */
export function recorder() {
  const made = Date.now();
  const lines: RecordedLine[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, at: Date.now() - made, ...(fields ? { fields } : {}) });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

/** The error lines a recorder kept. */
export const errorLines = (lines: readonly RecordedLine[]) => lines.filter((line) => line.level === 'error');

/**
 * How many times the service stored each of `contents` (a message's text), in one pass over the
 * tenant's messages: `sandbox.messages()` builds and checks every log each call, so a count per
 * content, polled, is quadratic.
 */
export function storedCounts(
  sandbox: { messages(tenant: string): readonly { readonly content: string | null }[] },
  contents: readonly string[],
  tenant = 'acme',
): number[] {
  const counts = new Map<string | null, number>();
  for (const { content } of sandbox.messages(tenant)) counts.set(content, (counts.get(content) ?? 0) + 1);
  return contents.map((content) => counts.get(content) ?? 0);
}

/** Every content stored exactly once (`counts` from `storedCounts`): none sent twice, none lost. */
export function expectStoredOnce(counts: readonly number[]): void {
  expect(
    counts.filter((n) => n > 1),
    'sent twice',
  ).toEqual([]);
  expect(
    counts.filter((n) => n === 0),
    'lost',
  ).toEqual([]);
}

/**
 * A reader of `queue.updates()`, as another process would have one, keeping the ids of the
 * updates whose status is one of `statuses`. `stop()` ends it and awaits it: an error that ended
 * it before fails the test there; `abort()` only ends it (for a `finally`).
 */
export function readUpdates(queue: MessagingQueue, statuses: readonly MessagingUpdate['status'][] = ['sent']) {
  const ids = new Set<string>();
  const reader = new AbortController();
  const reading = (async () => {
    for await (const update of queue.updates({ signal: reader.signal }))
      if (statuses.includes(update.status)) ids.add(update.id);
  })();
  reading.catch(() => undefined); // awaited by stop()
  return {
    ids,
    stop: async () => {
      reader.abort();
      await reading;
    },
    abort: () => reader.abort(),
  };
}

/** Waits until `check` holds (polled every 50 ms), or throws after `timeoutMs` saying `what()`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
