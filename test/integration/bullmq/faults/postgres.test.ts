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
import { untilDrained } from './drained.js';

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

/** The pids `query` names (a column `pid`; not those whose `ok` is false), asked on a connection of its own. */
async function adminPids(query: string): Promise<number[]> {
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  try {
    const { rows } = await admin.query(query);
    return rows.filter((row) => row.ok !== false).map((row) => row.pid as number);
  } finally {
    await admin.end();
  }
}

const CLIENTS = `FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`;

/** Every client connection but this one, terminated: their pids. */
// In the select list, so that it runs only for the rows the condition kept (never this connection).
const terminateAll = () => adminPids(`SELECT pid, pg_terminate_backend(pid) AS ok ${CLIENTS}`);

/** The client connections open now, this one aside: their pids. */
const clientConnections = () => adminPids(`SELECT pid ${CLIENTS}`);

/**
 * 60 tracked sends through two workers sharing a fleet limit, with a reader of `updates()`; `fault`
 * strikes once the first sends are stored. Resolves once the invariants are checked.
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
      30_000,
      () => 'the first sends',
    );
    await fault();
    await until(
      () => storedCounts(sandbox, contents).every((n) => n >= 1),
      60_000,
      () => `sent: ${storedCounts(sandbox, contents).join('')}, errors logged: ${errors.join('; ')}`,
    );
    await until(
      () => sent.ids.size === 60,
      30_000,
      () => `updates read: ${sent.ids.size} of 60`,
    );
    // Nothing left to run: no POST can come after the count.
    await untilDrained(queue);
    await Promise.all(workers.map((w) => w.close()));
    expectStoredOnce(storedCounts(sandbox, contents));
    await sent.stop(); // ended by the signal, never by the fault
  } finally {
    sent.abort();
    sandbox.faults.clear();
    await Promise.all(workers.map((w) => w.close()));
    await queue.close();
  }
}

describe.runIf(available)('the fleet on PostgreSQL against database faults', () => {
  it('restarted mid-send (every connection ended, the data kept): every send exactly once, the reader misses nothing', async () => {
    await sendThrough(() => db.restart(500)); // down half a second (the fault's shape)
  }, 120_000);

  it("every one of the SDK's connections terminated, three times: every send exactly once, the reader misses nothing", async () => {
    await sendThrough(async () => {
      let terminated: number[] = [];
      for (let round = 0; round < 3; round++) {
        // Each round once the SDK has connected again: a connection the last round did not end.
        await until(
          async () => (await clientConnections()).some((pid) => !terminated.includes(pid)),
          30_000,
          () => `the SDK connected again before round ${round + 1}`,
        );
        terminated = await terminateAll();
        expect(terminated.length).toBeGreaterThan(0);
      }
    });
  }, 120_000);

  it('a worker and a queue made while the database is down start once it is back, and send', async () => {
    const name = uniqueName('pg-down');
    const connection = { postgres: { connectionString: db.url, max: 2 } };
    // Down 2 s (the fault's shape): the fleet is made, and first tries, while it is down.
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
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 60_000);
});
