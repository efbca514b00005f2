/**
 * Per-sender lanes and per-recipient pacing across a fleet of worker processes (issue 29), on Redis
 * and on PostgreSQL, against the sandbox with the same lanes enforced (a send over one is a 429).
 * What the service saw decides: the busiest second per sender, the smallest gap per recipient,
 * every send stored once, and no head-of-line blocking, asserted as counts and order. How close a
 * run comes to the time the lanes allow is a rate: `npm run bench` measures it (section 14).
 * Runs the built package in the children: `npm run build` first (built here when dist is missing).
 * One file per backend (lanes-redis.test.ts, lanes-postgres.test.ts), so that the two run side by
 * side, each with its own datastore and sandbox. Counts, order and the lanes' bounds only, and
 * waits for conditions: it holds beside any load.
 */
import { type ChildProcess, execSync, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type EnqueueItem, MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../../helpers/redis.js';
import { type BACKENDS, type BackendFixture, fastWorker, startBackendFixture, until } from '../fixture.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const workerScript = fileURLToPath(new URL('../crash-worker.mjs', import.meta.url));

const BUSY_SENDER = '+15550001001';
const SHARED_SENDER = '+15550001002';
/** Four other senders, two sends each: within their lanes, they must not wait behind the busy ones. */
const QUIET_SENDERS = ['+15550001003', '+15550001004', '+15550001005', '+15550001006'];
const BUSY_RECIPIENT = '+15557654321';
const PER_SENDER = 4;
const MIN_INTERVAL = 500;
const SENDS = { route: 'POST /messages' } as const;
/** The sender of the turns test: its sends stay out of the mixed run's figures. */
const TURNS_SENDER = '+15550001007';

/** The workload, in the queue's order: the busy lanes first, the others last (behind them). */
function workload(): EnqueueItem[] {
  const item = (sender: string, to: string, i: number): EnqueueItem => ({
    params: { sender_phone: sender, to_phone: to, type: 'text', content: `lanes ${i}` },
    id: `lanes-${i}`,
  });
  const items: EnqueueItem[] = [];
  // 16 sends of one sender, each to its own recipient: 4 rounds of its lane.
  for (let i = 0; i < 16; i++) items.push(item(BUSY_SENDER, `+1555765430${i % 10}${Math.floor(i / 10)}`, items.length));
  // 4 sends to one person, one of them written another way: 3 gaps of MIN_INTERVAL.
  for (let i = 0; i < 4; i++) items.push(item(SHARED_SENDER, i === 2 ? '15557654321' : BUSY_RECIPIENT, items.length));
  // 8 sends of four other senders to 8 others: they must not wait behind the busy lanes.
  for (let i = 0; i < 8; i++) items.push(item(QUIET_SENDERS[i % 4] as string, `+1555765440${i}`, items.length));
  return items;
}

const children = new Set<ChildProcess>();

async function startWorker(f: BackendFixture, name: string): Promise<ChildProcess> {
  const { baseUrl, keys } = f.sandbox.tenants['acme'] as (typeof f.sandbox.tenants)[string];
  const connection = f.connection as { postgres?: { connectionString: string }; port?: number };
  const child = fork(workerScript, {
    env: {
      ...process.env,
      ...(connection.postgres
        ? { PG_URL: connection.postgres.connectionString }
        : { REDIS_PORT: String(connection.port) }),
      QUEUE: name,
      BASE_URL: baseUrl,
      API_KEY: keys.full,
      CONCURRENCY: '4',
      RPS: '200',
      LANES: JSON.stringify({
        perSender: { requestsPerSecond: PER_SENDER },
        perRecipient: { minInterval: MIN_INTERVAL },
      }),
    },
    execPath: process.execPath,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the worker process exited (${code}) before it was ready`)));
  });
  return child;
}

/** The lanes tests on one backend. */
export function lanesRun([backend, available]: (typeof BACKENDS)[number]): void {
  describe(`lanes across a fleet of worker processes on ${backend}`, () => {
    let f: BackendFixture;
    beforeAll(async () => {
      if (!available) return;
      if (!existsSync(`${root}dist/bullmq/index.js`)) execSync('npm run build', { cwd: root, stdio: 'ignore' });
      f = await startBackendFixture(backend, {
        tenants: [
          {
            slug: 'acme',
            senderNumbers: [BUSY_SENDER, SHARED_SENDER, ...QUIET_SENDERS, TURNS_SENDER].map((phone) => ({ phone })),
          },
        ],
        laneLimits: { perSender: { perSecond: PER_SENDER }, perPair: { minInterval: MIN_INTERVAL } },
      });
    });
    afterAll(async () => {
      for (const child of children) child.kill('SIGKILL');
      await f?.close();
    });

    // On Redis only: the turns' store calls are held to the same promises on PostgreSQL by the store
    // conformance suite (test/integration/bullmq/store/conformance.test.ts).
    if (backend === 'redis')
      it.runIf(available)('sends waiting for one busy recipient come back one a turn, not all at once', async () => {
        const interval = 250;
        const to = '+15557654399';
        {
          const name = uniqueName();
          const raw = f.raw(name);
          const queue = new MessagingQueue({ connection: f.connection, name });
          const worker = new MessagingWorker(
            fastWorker(f, name, {
              concurrency: 8,
              rateLimit: { requestsPerSecond: 200, perRecipient: { minInterval: interval } },
            }),
          );
          f.sandbox.requestLog.reset();
          // The service's pair limit under this test's interval: a send closer than 200 ms is refused.
          f.sandbox.setLaneLimits({ perPair: { minInterval: 200 } });
          try {
            await worker.ready();
            const ids = await queue.sendMany(
              Array.from({ length: 10 }, (_, i) => ({
                params: { sender_phone: TURNS_SENDER, to_phone: to, type: 'text' as const, content: `turn ${i}` },
                id: `turn-${i}`,
              })),
            );
            await until(
              async () => (await queue.counts()).sent >= ids.length,
              45_000,
              () => `the ${ids.length} turns were not all sent`,
            );
            expect((await queue.counts()).sent).toBe(ids.length);
            const arrivals = f.sandbox.requestLog.acceptedAt({ ...SENDS, recipient: to });
            expect(arrivals).toHaveLength(10);
            expect(f.sandbox.requestLog.minGap({ ...SENDS, recipient: to })).toBeGreaterThanOrEqual(interval);
            // Each waiting send is taken by a worker about three times (at first, at its turn, then at
            // the exact end of the place before it), not once every interval for as long as it waits
            // (without turns, the k-th waiting send about k times).
            let starts = 0;
            for (const id of ids) starts += (await raw.getJob(id))?.attemptsStarted ?? 0;
            expect(starts).toBeLessThanOrEqual(ids.length * 5);
          } finally {
            f.sandbox.setLaneLimits({ perSender: { perSecond: PER_SENDER }, perPair: { minInterval: MIN_INTERVAL } });
            await worker.close();
            await queue.close();
            await raw.close();
          }
        }
      });

    it.runIf(available)(
      'no sender over its lane, no recipient under its gap, each send once, the others before the third round of the busy lanes',
      async () => {
        {
          const name = uniqueName();
          const queue = new MessagingQueue({ connection: f.connection, name });
          const workers = await Promise.all([startWorker(f, name), startWorker(f, name), startWorker(f, name)]);
          try {
            f.sandbox.requestLog.reset();
            const items = workload();
            const before = f.sandbox.counters.requests['POST /messages'] ?? 0;
            const stored = f.sandbox.messages('acme').length;
            await queue.sendMany(items);
            await until(
              async () => {
                const { sent, failed, unknown } = await queue.counts();
                return sent + failed + unknown >= items.length;
              },
              45_000,
              () => `the ${items.length} sends of the workload did not all end`,
            );
            const counts = await queue.counts();
            expect(counts).toMatchObject({ sent: items.length, failed: 0, unknown: 0 });
            const log = f.sandbox.requestLog;
            // Each stored once, and no lane of the service ever refused one (a 429 is never accepted).
            expect(f.sandbox.messages('acme').length - stored).toBe(items.length);
            expect(f.sandbox.counters.requests['POST /messages']).toBe(before + items.length);
            // The lanes where the service counts them.
            expect(log.maxInWindow(1000, { ...SENDS, sender: BUSY_SENDER })).toBeLessThanOrEqual(PER_SENDER);
            expect(log.minGap({ ...SENDS, recipient: BUSY_RECIPIENT })).toBeGreaterThanOrEqual(MIN_INTERVAL);
            // The others did not wait behind the busy lanes, though queued after them: all 8 arrived
            // before the busy sender's third round and the shared recipient's third send. Waiting
            // behind them (a send held for its lane keeping its worker's slot) puts the last of the
            // 8 at the busy sender's fourth round; a busy machine delays them a second at most.
            const quiet = QUIET_SENDERS.flatMap((sender) => log.acceptedAt({ ...SENDS, sender }));
            expect(quiet).toHaveLength(8);
            const busy = log.acceptedAt({ ...SENDS, sender: BUSY_SENDER }).sort((x, y) => x - y);
            const shared = log.acceptedAt({ ...SENDS, recipient: BUSY_RECIPIENT }).sort((x, y) => x - y);
            expect(busy).toHaveLength(16);
            expect(shared).toHaveLength(4);
            expect(Math.max(...quiet)).toBeLessThan(busy[2 * PER_SENDER] as number);
            expect(Math.max(...quiet)).toBeLessThan(shared[2] as number);
            // The busy sender's 16 sends at 4 a second are 4 rounds: at least 3 s from its first to its last.
            expect((busy.at(-1) as number) - (busy[0] as number)).toBeGreaterThanOrEqual(3_000);
          } finally {
            await Promise.all(
              workers.map(
                (child) =>
                  new Promise((resolve) => {
                    if (child.exitCode !== null) return resolve(undefined);
                    child.once('exit', resolve);
                    child.kill('SIGTERM');
                  }),
              ),
            );
            await queue.close();
          }
        }
      },
    );
  });
}
