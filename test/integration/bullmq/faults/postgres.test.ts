/**
 * The fleet on PostgreSQL against the faults a database brings in production: the server restarted
 * (every connection ended, the data kept) and every connection of the SDK terminated by the server
 * (`pg_terminate_backend`, as a failover or an administrator does). Each of the SDK's connections
 * is in play: BullMQ's pools, the fleet gate's places, the update log and its reader. The
 * invariants: never sent twice, none lost, no crash (an unhandled error fails the test), no hang.
 */
import pg from 'pg';
import { MessagingClient } from 'tenant-messaging';
import { MessagingQueue, MessagingWorker } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgresWithBullmq, type TestPostgres } from '../../../helpers/postgres.js';
import { uniqueName } from '../../../helpers/redis.js';
import { expectStoredOnce, readUpdates, storedCounts, text, until } from '../fixture.js';

const available = postgresAvailable();
let db: TestPostgres;
let sandbox: RunningSandbox<'acme' | 'globex'>;
let client: MessagingClient;

beforeAll(async () => {
  if (!available) return;
  db = await startPostgresWithBullmq();
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 200 } });
  const { baseUrl, keys } = sandbox.tenants.acme;
  client = new MessagingClient({ baseUrl, apiKey: keys.full, timeout: 2_000 });
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  await db?.stop();
});

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function terminateAll(): Promise<number> {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    return rows[0].n as number;
  } finally {
    await admin.end();
  }
}

/**
 * 60 tracked sends through two workers sharing a fleet limit, with a reader of `updates()`; `fault`
 * strikes once the first sends are stored. Resolves with the figures, after checking the invariants.
 */
async function sendThrough(fault: () => Promise<unknown>) {
  const name = uniqueName('pg-fault');
  const connection = { postgres: { connectionString: db.url, max: 4 } };
  const queue = new MessagingQueue({ connection, name });
  const errors: string[] = [];
  const logger = { debug() {}, info() {}, warn() {}, error: (message: string) => errors.push(message) };
  const options = {
    connection,
    name,
    client,
    concurrency: 4,
    lockDuration: 5_000,
    stalledInterval: 2_000,
    rateLimit: { requestsPerSecond: 40 },
    logger,
  };
  const workers = [new MessagingWorker(options), new MessagingWorker(options)];
  const contents = Array.from({ length: 60 }, (_, i) => `${name} ${i}`);
  const sent = readUpdates(queue);
  try {
    await Promise.all(workers.map((w) => w.ready()));
    sandbox.faults.add({ kind: 'latency', latencyMs: 100, route: 'POST /messages', ratio: 1 });
    await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `m-${i}` })));
    await until(
      () => storedCounts(sandbox, contents).some((n) => n > 0),
      15_000,
      () => 'the first sends',
    );
    const struck = Date.now();
    await fault();
    await until(
      () => storedCounts(sandbox, contents).every((n) => n >= 1),
      60_000,
      () => `sent: ${storedCounts(sandbox, contents).join('')}`,
    );
    const recoveredMs = Date.now() - struck;
    await until(
      () => sent.ids.size === 60,
      20_000,
      () => `updates read: ${sent.ids.size} of 60`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const counts = storedCounts(sandbox, contents);
    expectStoredOnce(counts);
    await sent.stop(); // ended by the signal, never by the fault
    return { sent: counts.length, recoveredMs, loggedErrors: errors.length };
  } finally {
    sent.abort();
    sandbox.faults.clear();
    await Promise.all(workers.map((w) => w.close()));
    await queue.close();
  }
}

describe.runIf(available)('the fleet on PostgreSQL against database faults', () => {
  it('restarted mid-send (every connection ended, the data kept): every send exactly once, the reader misses nothing', async () => {
    const figures = await sendThrough(() => db.restart(500));
    console.log(
      `postgres restarted: ${figures.sent} sent, 0 twice, 0 lost, all sent ${figures.recoveredMs} ms after the restart began; ${figures.loggedErrors} errors logged`,
    );
  }, 120_000);

  it("every one of the SDK's connections terminated, three times: every send exactly once, the reader misses nothing", async () => {
    const figures = await sendThrough(async () => {
      for (let round = 0; round < 3; round++) {
        expect(await terminateAll()).toBeGreaterThan(0);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    });
    console.log(
      `postgres connections terminated 3 times: ${figures.sent} sent, 0 twice, 0 lost, all sent ${figures.recoveredMs} ms after; ${figures.loggedErrors} errors logged`,
    );
  }, 120_000);

  it('a worker and a queue made while the database is down start once it is back, and send', async () => {
    const name = uniqueName('pg-down');
    const connection = { postgres: { connectionString: db.url, max: 2 } };
    let downSince = 0;
    const restarting = db.restart(2_000);
    // The fleet is made while the server is down: BullMQ's first readiness check fails.
    await until(
      async () => {
        const probe = new pg.Client({ connectionString: db.url });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          await probe.end();
          return false;
        } catch {
          downSince ||= Date.now();
          return true;
        }
      },
      10_000,
      () => 'the server going down',
    );
    const worker = new MessagingWorker({ connection, name, client, logger: quiet });
    const queue = new MessagingQueue({ connection, name });
    try {
      await restarting;
      await worker.ready();
      const contents = Array.from({ length: 5 }, (_, i) => `${name} ${i}`);
      await queue.sendMany(contents.map((content, i) => ({ params: { ...text(i), content }, id: `d-${i}` })));
      await until(
        () => storedCounts(sandbox, contents).every((n) => n === 1),
        30_000,
        () => `sent: ${storedCounts(sandbox, contents).join('')}`,
      );
      console.log(`postgres down at start: 5 sent ${Date.now() - downSince} ms after it went down`);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 60_000);
});
