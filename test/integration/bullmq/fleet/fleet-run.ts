/**
 * The fleet test (issues 13, 17 and 19), on Redis and on PostgreSQL (BullMQ's backend, issue 19):
 * 4 worker processes share one key limited to 50 requests per
 * second by the sandbox (a process of its own), send what a producer enqueued with `sendMany`,
 * and track delivery. A third of the sends are held by the service before it counts them (a send
 * stalled mid-request), so the service counts them later than the polls that started with them.
 * One worker is killed with SIGKILL three times at seeded random moments (once inside a held send
 * the service stored) and restarted each time. Every message must end exactly once (`sent` and
 * stored once, or `unknown` for a send a kill cut), no sliding second at the service may hold
 * more than the limit, and every delivered message must be reported through `updates()`.
 * Runs the built package in the children: `npm run build` first (built here when dist is missing).
 */
import { type ChildProcess, execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessagingQueue, type MessagingUpdate } from 'tenant-messaging/bullmq';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../src/sandbox/faults/random.js';
import { uniqueName } from '../../../helpers/redis.js';
import { type BACKENDS, until } from '../fixture.js';
import { FleetProcesses, type SandboxChild, type Store, startStore } from './fleet-processes.js';

const LIMIT = 50;
const WORKERS = 4;
const KILLS = 3;
// Every message needs a send and at least one poll, and a request holds its place in the fleet
// gate for its own time plus a second: 160 messages are about 380 requests, about 8 s on a quiet
// machine (longer under load: the test waits for what happened, not for a time).
const MESSAGES = 160;
// Answers the service drops after storing the send: each send must end `sent` by reconciliation.
const LOST_ANSWERS = 3;
const SEED = 20_261_123;
// Sends held mid-request: a third of them, 250 ms each, before the service counts them.
const LATENCY_MS = 250;
const LATENCY_RATIO = 1 / 3;
// Concurrency 4 per worker: held sends keep jobs busy, and a kill then cuts up to 4 jobs in
// flight: at most 4 `unknown` per kill (a send cut before the service stored it), found otherwise.
const CONCURRENCY = 4;
const TRACK = { until: 'delivered', interval: 500, timeout: 60_000 };
// A killed worker's job is re-run after about lockDuration + stalledInterval (BullMQ's stall check).
const LOCK_MS = 3_000;
const STALLED_MS = 1_000;
// The reconcile window's margin: the sandbox runs on this machine's clock, so no skew is possible.
// A walk reads every log back to the send's start minus this margin, one page per job start within
// the limit; the default (60 s) would read every log of the run in each walk (see README).
const CLOCK_SKEW_MS = Number(process.env['FLEET_CLOCK_SKEW_MS'] ?? 2_000);

const root = fileURLToPath(new URL('../../../../', import.meta.url));

let store: Store | undefined;
let sandbox: SandboxChild | undefined;
const processes = new FleetProcesses();

/** Starts the sandbox process: the limit, the lost answers and the held sends. */
function startSandbox(): Promise<SandboxChild> {
  return processes.startSandbox({
    RPS: String(LIMIT),
    MESSAGES: String(MESSAGES),
    LOST: String(LOST_ANSWERS),
    LATENCY_MS: String(LATENCY_MS),
    LATENCY_RATIO: String(LATENCY_RATIO),
    SEED: '1',
  });
}

/** Starts a worker process of the fleet on queue `name`. */
function startWorker(name: string): Promise<ChildProcess> {
  if (!store || !sandbox) throw new Error('the fixture is not started');
  return processes.startWorker({
    ...store.env,
    QUEUE: name,
    BASE_URL: sandbox.url,
    API_KEY: sandbox.key,
    CONCURRENCY: String(CONCURRENCY),
    LOCK_MS: String(LOCK_MS),
    STALLED_MS: String(STALLED_MS),
    CLOCK_SKEW_MS: String(CLOCK_SKEW_MS),
    RPS: String(LIMIT),
    TRACK: JSON.stringify(TRACK),
  });
}

const FINAL = new Set(['sent', 'failed', 'unknown']);
const TRACKED = new Set(['delivered', 'read', 'delivery-timeout']);

/**
 * The fleet test on one backend: one file per backend (fleet-redis.test.ts,
 * fleet-postgres.test.ts), so that the two run side by side, each with its own datastore and
 * sandbox (its own limit). It asserts counts and the limit's bound, never a rate, so it holds beside
 * any load: the waits are for conditions (sends counted, messages settled), bounded by the timeout.
 */
export function fleetRun([backend, available]: (typeof BACKENDS)[number]): void {
  describe(`a fleet of 4 workers on ${backend}, one killed 3 times`, () => {
    beforeAll(async () => {
      if (!available) return;
      if (!existsSync(`${root}dist/bullmq/index.js`)) execSync('npm run build', { cwd: root, stdio: 'ignore' });
      [store, sandbox] = await Promise.all([startStore(backend), startSandbox()]);
    }, 60_000);

    afterAll(async () => {
      await processes.killAll();
      await store?.stop();
      store = undefined;
      sandbox = undefined;
    });

    it.runIf(available)(
      'sends every message once or reports it unknown, within the limit, and reports every delivery',
      async () => {
        const name = uniqueName('fleet');
        const connection = (store as Store).connection;
        const queue = new MessagingQueue({ connection, name });
        const abort = new AbortController();
        const byId = new Map<string, MessagingUpdate[]>();
        let settled = 0;
        // Read from 'start' so nothing published before the reader connected is missed.
        const reading = (async () => {
          for await (const update of queue.updates({ from: 'start', signal: abort.signal })) {
            const seen = byId.get(update.id) ?? [];
            seen.push(update);
            byId.set(update.id, seen);
            const terminal = update.status === 'failed' || update.status === 'unknown' || TRACKED.has(update.status);
            if (terminal && seen.filter((u) => u.status !== 'sent').length === 1) settled++;
          }
        })().catch(() => {});
        try {
          const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(name)));
          const ids = await queue.sendMany(
            Array.from({ length: MESSAGES }, (_, i) => ({
              id: `m-${i}`,
              params: {
                sender_phone: '+15550001001',
                to_phone: SANDBOX_PHONES.reads,
                type: 'text' as const,
                content: `Fleet message ${i}`,
              },
            })),
          );
          expect(ids).toHaveLength(MESSAGES);

          // Three kills of worker 0 at seeded moments of the run, each once the service has counted a
          // seeded number of sends (between a tenth and a half of them): a condition, not a clock, so
          // the kills land among the sends however fast or slow the machine runs them. The first
          // kill waits for worker 0's next send and lands inside it (stored by the service, the
          // answer not yet back): that job must be found by reconciling.
          const random = seededRandom(SEED);
          const moments = Array.from({ length: KILLS }, () =>
            Math.floor(MESSAGES / 10 + random() * ((MESSAGES * 2) / 5)),
          ).sort((a, b) => a - b);
          for (const [k, sends] of moments.entries()) {
            await until(
              async () => (await (sandbox as SandboxChild).stats()).sends >= sends,
              90_000,
              () => `the service never counted ${sends} sends before kill ${k + 1}`,
            );
            if (k === 0) await processes.killInSend(workers[0] as ChildProcess);
            else await processes.kill(workers[0] as ChildProcess, 'SIGKILL');
            workers[0] = await startWorker(name);
          }

          // Every message settled (delivered, read, failed or unknown): bounded by the test's timeout.
          await until(
            () => settled >= MESSAGES,
            90_000,
            () => {
              const open = ids.filter((id) => !(byId.get(id) ?? []).some((u) => u.status !== 'sent'));
              return `${settled} of ${MESSAGES} messages settled; still open: ${open.slice(0, 5).join(', ')}`;
            },
          );
          const stats = await (sandbox as SandboxChild).stats();
          const raw = (store as Store).raw(name);
          const finished = await raw.getJobs(['completed', 'failed']).finally(() => raw.close());
          // Jobs a kill cut and another worker re-ran after the stall check: the first kill's at least.
          const stalledReruns = finished.filter((job) => (job.stalledCounter ?? 0) > 0).length;

          const statusesOf = (id: string, statuses: Set<string>) =>
            (byId.get(id) ?? []).filter((u) => statuses.has(u.status)).map((u) => u.status);
          let sent = 0;
          let unknown = 0;
          let duplicates = 0;
          let lost = 0;
          let missingUpdate = 0;
          let undelivered = 0;
          const problems: string[] = [];
          for (let i = 0; i < MESSAGES; i++) {
            const id = `m-${i}`;
            const stored = stats.stored[`Fleet message ${i}`] ?? 0;
            // Updates are delivered at least once (a re-run may publish one again): distinct outcomes.
            const outcome = [...new Set(statusesOf(id, FINAL))];
            if (stored > 1) duplicates++;
            if (outcome.length === 0) missingUpdate++;
            if (outcome.length > 1) problems.push(`${id} reported ${outcome.join(' and ')}`);
            if (outcome[0] === 'sent') {
              sent++;
              if (stored !== 1) lost++;
              if (!statusesOf(id, new Set(['delivered', 'read'])).length) undelivered++;
            } else if (outcome[0] === 'unknown') {
              unknown++;
              // An unknown send was not found by reconciliation: the service never stored it.
              if (stored !== 0) {
                const error = byId.get(id)?.find((u) => u.status === 'unknown')?.error?.message;
                problems.push(`${id} unknown but stored ${stored} times: ${error}`);
              }
            } else {
              if (stored === 0) lost++;
              problems.push(`${id}: ${JSON.stringify(byId.get(id) ?? [])}`);
            }
          }
          expect(problems.slice(0, 5)).toEqual([]);
          expect(missingUpdate).toBe(0);
          expect(sent + unknown).toBe(MESSAGES);
          expect(duplicates).toBe(0);
          expect(lost).toBe(0);
          // At most one unknown per job in flight in the killed worker (CONCURRENCY per kill).
          expect(unknown).toBeLessThanOrEqual(KILLS * CONCURRENCY);
          expect(undelivered).toBe(0);
          expect(stalledReruns).toBeGreaterThanOrEqual(1);
          // Load cannot break this bound (the gate's proof, src/bullmq/fleet/gate.ts): the service
          // stamps a request between its first byte and its answer, and a place is held from its
          // admission until a second after the worker has the answer, on the machine's one clock.
          // A stalled machine delays answers, which only holds places longer; the service stamping
          // late bunches its stamps, but each place is still held past its own stamp plus a second.
          expect(stats.busiestSecond).toBeLessThanOrEqual(LIMIT);
          // How much of the limit the fleet achieves (the sends' rate, what shared the limit while they
          // ran) is a rate: `npm run bench` measures it (section 10, "fleet").
          await Promise.all(workers.map((worker) => processes.kill(worker, 'SIGTERM')));
        } finally {
          abort.abort();
          await queue.close();
          await reading;
        }
      },
      100_000,
    );
  });
}
