/**
 * Section 15, "the fleet at its limit" (reported, not a target; issue 39): for each limit R, answer
 * time r and number of worker processes, `rounds x R + 1` sends through a fleet of
 * `MessagingWorker` processes on Redis, against the sandbox in its own process (each send held r ms,
 * then counted; its key-wide limit off, so the figures are what the fleet did):
 *
 *   allowed  = R x 1000 / (1000 + r): the window rule (a place from admission until a second
 *              after the answer). With `rounds x R + 1` sends it is exactly what a perfect fleet
 *              reaches from its first send to its last
 *   achieved = (sends - 1) / (last send - first send), on the sandbox's clock
 *   share    = achieved / allowed; busiest = the busiest sliding second (must not pass R)
 *
 * Each fleet has the concurrency docs/fleet.md asks for (`concurrencyFor`). Some runs SIGKILL one
 * worker mid-run (its sends come back once their locks expire, so the span includes that wait).
 * Beside them, the same sends through BullMQ's own limiter alone, `{ max: R, duration: 1000 }`
 * (bench/limit-bullmq-child.mjs). A few runs keep the queue on PostgreSQL instead (BullMQ 6's
 * backend: its jobs and the SDK's store, no Redis at all).
 *
 * Each run also counts what it cost the datastore, from the moment the workers are ready (counters
 * reset) until every send has ended: per send, everything (enqueue, job starts, the gate, the
 * marks, completion, the idle workers' blocking reads). On the server (bench/limit-datastore.mjs):
 * Redis commands, scripts among them; PostgreSQL statements, top level and inside functions. On
 * the clients (bench/round-trips.mjs, `--import`ed in each worker; the producer counted in this
 * process): round trips, each a request the client waits on.
 * Needs `redis-server` on the PATH (and PostgreSQL's binaries for its runs); without them those
 * runs are reported skipped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SENDER_PHONE, TO_PHONE } from './fixtures.mjs';
import { forkChild } from './ipc.mjs';
import { postgresDatastore, redisDatastore } from './limit-datastore.mjs';
import { addRoundTrips, askRoundTrips, roundTrips, uncounted } from './round-trips.mjs';
import { round } from './stats.mjs';
import { startWorkers, stopWorkers } from './workers.mjs';

const SANDBOX = new URL('./limit-sandbox-child.mjs', import.meta.url);
const BULLMQ_WORKER = new URL('./limit-bullmq-child.mjs', import.meta.url);
const COUNTING = ['--import', fileURLToPath(new URL('./round-trips.mjs', import.meta.url))];

/**
 * @typedef {{ rate: number, answerMs: number, processes: number, kill?: boolean, bullmq?: boolean, backend?: 'postgres' }} LimitRun
 * @typedef {{ rounds: number, runs: LimitRun[], deadlineMs: number }} LimitConfig
 * @typedef {import('./limit-datastore.mjs').Datastore} Datastore
 */

/**
 * The concurrency of each of `processes` workers sharing a limit of `rate` with answers of
 * `answerMs`, as docs/fleet.md sizes it: the sends in flight (R x r / 1000), plus 250 ms of each
 * job's own steps (its start, mark and end in the datastore: slower on a loaded machine), plus one
 * waiting send per process, spread over the processes.
 * @param {number} rate @param {number} answerMs @param {number} processes
 */
export const concurrencyFor = (rate, answerMs, processes) =>
  Math.max(1, Math.ceil(((rate * (answerMs + 250)) / 1000 + processes) / processes));

/** @param {Record<string, number>} byName @param {number} sends */
const perSend = (byName, sends) =>
  Object.fromEntries(
    Object.entries(byName)
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => [name, round(n / sends, 2)]),
  );

/**
 * What a run cost, per send: the server's counts and the clients' round trips.
 * @param {Awaited<ReturnType<Datastore['read']>>} server
 * @param {import('./round-trips.mjs').RoundTrips} clients the workers' and the producer's
 * @param {import('./round-trips.mjs').RoundTrips} producer @param {number} sends
 */
function costPerSend(server, clients, producer, sends) {
  const per = (/** @type {number} */ n) => round(n / sends, 1);
  const redis = server.redis;
  const pg = server.postgres;
  return {
    ...(redis ? { commandsPerSend: per(redis.calls), scriptsPerSend: per(redis.scripts) } : {}),
    redisRoundTripsPerSend: per(clients.redis.roundTrips),
    redisCommandsSentPerSend: per(clients.redis.commands),
    ...(pg
      ? {
          sqlRoundTripsPerSend: per(clients.postgres.roundTrips),
          sqlStatementsPerSend: per(pg.topLevel),
          sqlNestedStatementsPerSend: per(pg.nested),
        }
      : {}),
    /** The producer's share of the round trips (its enqueue). */
    producerRoundTripsPerSend: per(producer.redis.roundTrips + producer.postgres.roundTrips),
    /** For a closer look, the most frequent first: each command's calls per send (server). */
    ...(redis ? { commandsByName: perSend(redis.byCommand, sends) } : {}),
    ...(pg ? { statementsByText: perSend(pg.byStatement, sends) } : {}),
    /** Each round trip's kind per send (clients): a command, a script, 'pipeline', 'multi', or a query's function. */
    roundTripsByName: perSend(pg ? clients.postgres.byName : clients.redis.byName, sends),
    producerRoundTripsByName: perSend(pg ? producer.postgres.byName : producer.redis.byName, sends),
  };
}

/**
 * One run: a fresh queue and sandbox, the workers ready, then every send enqueued at once.
 * @param {Datastore} store @param {LimitRun} run @param {LimitConfig} config
 */
async function limitRun(store, run, config) {
  const { rate, answerMs, processes } = run;
  const sends = config.rounds * rate + 1;
  const concurrency = concurrencyFor(rate, answerMs, processes);
  const sandbox = await forkChild(SANDBOX, [String(answerMs), String(sends)]);
  const name = `bench-limit-${rate}-${answerMs}-${processes}-${run.kill ? 'k' : run.bullmq ? 'b' : 'n'}-${process.pid}`;
  const env = {
    ...store.env,
    QUEUE: name,
    BASE_URL: sandbox.ready.url,
    API_KEY: sandbox.ready.key,
    CONCURRENCY: String(concurrency),
    RPS: String(rate),
    BENCH_ROUND_TRIPS: 'ipc',
  };
  /** @type {import('node:child_process').ChildProcess[]} */
  let fleet = [];
  /** @type {{ close(): Promise<unknown> } | undefined} */
  let queue;
  try {
    fleet = await startWorkers(processes, env, run.bullmq ? BULLMQ_WORKER : undefined, [
      ...process.execArgv,
      ...COUNTING,
    ]);
    await store.reset();
    await Promise.all(fleet.map((child) => askRoundTrips(child, 'reset')));
    roundTrips(true);
    const params = (/** @type {number} */ i) => ({
      sender_phone: SENDER_PHONE,
      to_phone: TO_PHONE,
      type: /** @type {const} */ ('text'),
      content: `limit ${i}`,
    });
    /** How many sends have ended (sent, failed or unknown), asked of the datastore, not counted. */
    let ended = async () => 0;
    if (run.bullmq) {
      const { Queue, createPostgresBackend } = await import('bullmq');
      const connection = /** @type {any} */ (store.connection);
      const raw =
        store.kind === 'postgres'
          ? new Queue(name, { connection: connection.postgres }, createPostgresBackend)
          : new Queue(name, { connection });
      queue = raw;
      ended = async () => {
        const counts = await raw.getJobCounts('completed', 'failed');
        return (counts['completed'] ?? 0) + (counts['failed'] ?? 0);
      };
      await raw.addBulk(Array.from({ length: sends }, (_, i) => ({ name: 'send', data: params(i) })));
    } else {
      const { MessagingQueue } = await import('../dist/bullmq/index.js');
      const sdk = new MessagingQueue({ connection: /** @type {any} */ (store.connection), name });
      queue = sdk;
      ended = async () => {
        const counts = await sdk.counts();
        return counts.sent + counts.failed + counts.unknown;
      };
      await sdk.sendMany(Array.from({ length: sends }, (_, i) => ({ id: `limit-${i}`, params: params(i) })));
    }
    const producer = structuredClone(roundTrips());
    const started = performance.now();
    const killAt = started + 0.4 * config.rounds * (1000 + answerMs);
    let killed = !run.kill;
    /** @type {import('./round-trips.mjs').RoundTrips[]} */
    const gone = [];
    let stats = await sandbox.call('stats');
    let [stored, storedAt, askedAt] = [stats.stored, started, 0];
    // Until every send has ended. The queue is asked only once every send is stored, or once a
    // second while none arrives (a send its killed worker had marked in flight and not posted is
    // reconciled, not found, and ends `unknown`: never sent blindly), so the asking costs little.
    while (performance.now() - started < config.deadlineMs) {
      if (!killed && performance.now() >= killAt) {
        // Its counts so far, read just before the kill (the process cannot report after it).
        if (fleet[0]) gone.push(await askRoundTrips(fleet[0], 'read'));
        fleet[0]?.kill('SIGKILL');
        killed = true;
      }
      const now = performance.now();
      if (stats.stored !== stored) [stored, storedAt] = [stats.stored, now];
      const quiet = now - storedAt >= 1_000 && now - askedAt >= 1_000;
      if (stats.stored >= sends || quiet) {
        askedAt = now;
        if ((await uncounted(ended)) >= sends) break;
      }
      await sleep(50);
      stats = await sandbox.call('stats');
    }
    const server = await store.read();
    const live = fleet.filter((child) => child.exitCode === null && child.signalCode === null);
    const workers = await Promise.all(live.map((child) => askRoundTrips(child, 'read')));
    const clients = addRoundTrips([...workers, ...gone, roundTrips()]);
    const allowed = (rate * 1000) / (1000 + answerMs);
    const spanMs = stats.lastAt - stats.firstAt;
    const achieved = stats.accepted > 1 && spanMs > 0 ? ((stats.accepted - 1) / spanMs) * 1000 : 0;
    return {
      limiter: run.bullmq ? 'bullmq' : 'sdk',
      backend: store.kind,
      rate,
      answerMs,
      processes,
      concurrency,
      kill: run.kill === true,
      sends,
      accepted: stats.accepted,
      ended: await uncounted(ended),
      duplicates: stats.duplicates,
      spanMs: round(spanMs, 0),
      allowedPerSecond: round(allowed, 2),
      achievedPerSecond: round(achieved, 2),
      share: round(achieved / allowed, 3),
      busiestSecond: stats.busiestSecond,
      ...costPerSend(server, clients, producer, sends),
    };
  } finally {
    await stopWorkers(fleet);
    await queue?.close();
    await sandbox.close();
  }
}

/**
 * Every run on one datastore, started for them and stopped after (or the reason it cannot run).
 * @param {() => Promise<Datastore | string>} start @param {LimitRun[]} runs @param {LimitConfig} config
 */
async function runsOn(start, runs, config) {
  if (runs.length === 0) return { runs: [] };
  const store = await start();
  if (typeof store === 'string') return { runs: [], skipped: store };
  const done = [];
  try {
    for (const run of runs) done.push(await limitRun(store, run, config));
  } finally {
    await store.stop();
  }
  return { runs: done };
}

/** Section 15. @param {LimitConfig} config */
export async function benchFleetLimit(config) {
  const redis = await runsOn(
    redisDatastore,
    config.runs.filter((run) => run.backend !== 'postgres'),
    config,
  );
  const postgres = await runsOn(
    postgresDatastore,
    config.runs.filter((run) => run.backend === 'postgres'),
    config,
  );
  return {
    rounds: config.rounds,
    runs: [...redis.runs, ...postgres.runs],
    ...(redis.skipped ? { skipped: redis.skipped } : {}),
    ...(postgres.skipped ? { postgresSkipped: postgres.skipped } : {}),
  };
}

// `node bench/fleet-limit.mjs [--quick|--smoke]`: this section alone, against the build.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { FULL, QUICK, SMOKE } = await import('./config.mjs');
  const { fleetLimitRows, table } = await import('./report.mjs');
  const mode = process.argv.includes('--smoke') ? SMOKE : process.argv.includes('--quick') ? QUICK : FULL;
  const limit = await benchFleetLimit(mode.fleetLimit);
  process.stdout.write(
    `${table([['#', 'measure', 'SDK', 'raw / baseline', 'ratio', 'target'], ...fleetLimitRows(limit)])}\n`,
  );
  process.stdout.write(`${JSON.stringify(limit.runs)}\n`);
}
