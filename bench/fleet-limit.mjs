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
 * (bench/limit-bullmq-child.mjs). Each run also counts the Redis commands it cost (`INFO
 * commandstats`, reset before the sends are enqueued): per send, everything (enqueue, job starts,
 * the gate, the marks, completion, the idle workers' blocking reads).
 * Needs `redis-server` on the PATH; without it the section reports itself skipped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { hasRedis, startRedis } from '../test/helpers/redis.ts';
import { SENDER_PHONE, TO_PHONE } from './fixtures.mjs';
import { forkChild } from './ipc.mjs';
import { round } from './stats.mjs';
import { startWorkers, stopWorkers } from './workers.mjs';

const SANDBOX = new URL('./limit-sandbox-child.mjs', import.meta.url);
const BULLMQ_WORKER = new URL('./limit-bullmq-child.mjs', import.meta.url);

/**
 * @typedef {{ rate: number, answerMs: number, processes: number, kill?: boolean, bullmq?: boolean }} LimitRun
 * @typedef {{ rounds: number, runs: LimitRun[], deadlineMs: number }} LimitConfig
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

/** @param {import('ioredis').Redis} client */
async function commandCounts(client) {
  const info = await client.info('commandstats');
  let calls = 0;
  let scripts = 0;
  /** @type {Record<string, number>} */
  const byCommand = {};
  for (const [, name = '', n] of info.matchAll(/^cmdstat_([a-z|_]+):calls=(\d+)/gm)) {
    calls += Number(n);
    byCommand[name] = Number(n);
    if (name === 'evalsha' || name === 'eval') scripts += Number(n);
  }
  return { calls, scripts, byCommand };
}

/**
 * One run: a fresh queue and sandbox, the workers ready, then every send enqueued at once.
 * @param {{ port: number, client: import('ioredis').Redis }} redis @param {LimitRun} run @param {LimitConfig} config
 */
async function limitRun(redis, run, config) {
  const { rate, answerMs, processes } = run;
  const sends = config.rounds * rate + 1;
  const concurrency = concurrencyFor(rate, answerMs, processes);
  const sandbox = await forkChild(SANDBOX, [String(answerMs), String(sends)]);
  const name = `bench-limit-${rate}-${answerMs}-${processes}-${run.kill ? 'k' : run.bullmq ? 'b' : 'n'}-${process.pid}`;
  const env = {
    REDIS_PORT: String(redis.port),
    QUEUE: name,
    BASE_URL: sandbox.ready.url,
    API_KEY: sandbox.ready.key,
    CONCURRENCY: String(concurrency),
    RPS: String(rate),
  };
  /** @type {import('node:child_process').ChildProcess[]} */
  let fleet = [];
  /** @type {{ close(): Promise<unknown> } | undefined} */
  let queue;
  /** How many sends have ended (sent, failed or unknown), as the SDK's queue counts them. */
  let ended = async () => 0;
  try {
    fleet = await startWorkers(processes, env, run.bullmq ? BULLMQ_WORKER : undefined);
    await redis.client.config('RESETSTAT');
    const params = (/** @type {number} */ i) => ({
      sender_phone: SENDER_PHONE,
      to_phone: TO_PHONE,
      type: /** @type {const} */ ('text'),
      content: `limit ${i}`,
    });
    const connection = { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null };
    if (run.bullmq) {
      const { Queue } = await import('bullmq');
      const raw = new Queue(name, { connection });
      queue = raw;
      await raw.addBulk(Array.from({ length: sends }, (_, i) => ({ name: 'send', data: params(i) })));
    } else {
      const { MessagingQueue } = await import('../dist/bullmq/index.js');
      const sdk = new MessagingQueue({ connection, name });
      queue = sdk;
      ended = async () => {
        const counts = await sdk.counts();
        return counts.sent + counts.failed + counts.unknown;
      };
      await sdk.sendMany(Array.from({ length: sends }, (_, i) => ({ id: `limit-${i}`, params: params(i) })));
    }
    const started = performance.now();
    const killAt = started + 0.4 * config.rounds * (1000 + answerMs);
    let killed = !run.kill;
    let stats = await sandbox.call('stats');
    // Until every send is stored, or has ended otherwise (a send its killed worker had marked in
    // flight and not posted is reconciled, not found, and ends `unknown`: never sent blindly).
    while (stats.stored < sends && (await ended()) < sends && performance.now() - started < config.deadlineMs) {
      if (!killed && performance.now() >= killAt) {
        fleet[0]?.kill('SIGKILL');
        killed = true;
      }
      await sleep(50);
      stats = await sandbox.call('stats');
    }
    const commands = await commandCounts(redis.client);
    const allowed = (rate * 1000) / (1000 + answerMs);
    const spanMs = stats.lastAt - stats.firstAt;
    const achieved = stats.accepted > 1 && spanMs > 0 ? ((stats.accepted - 1) / spanMs) * 1000 : 0;
    return {
      limiter: run.bullmq ? 'bullmq' : 'sdk',
      rate,
      answerMs,
      processes,
      concurrency,
      kill: run.kill === true,
      sends,
      accepted: stats.accepted,
      ended: run.bullmq ? stats.accepted : await ended(),
      duplicates: stats.duplicates,
      spanMs: round(spanMs, 0),
      allowedPerSecond: round(allowed, 2),
      achievedPerSecond: round(achieved, 2),
      share: round(achieved / allowed, 3),
      busiestSecond: stats.busiestSecond,
      commandsPerSend: round(commands.calls / sends, 1),
      scriptsPerSend: round(commands.scripts / sends, 1),
      /** Each command's calls per send, the most called first (for a closer look). */
      commandsByName: Object.fromEntries(
        Object.entries(commands.byCommand)
          .sort((a, b) => b[1] - a[1])
          .map(([name, n]) => [name, round(n / sends, 1)]),
      ),
    };
  } finally {
    await stopWorkers(fleet);
    await queue?.close();
    await sandbox.close();
  }
}

/** Section 15. @param {LimitConfig} config */
export async function benchFleetLimit(config) {
  if (!hasRedis) return { runs: [], skipped: 'redis-server not installed (apt-get install -y redis-server)' };
  const redis = await startRedis();
  const { Redis } = await import('ioredis');
  const client = new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });
  const runs = [];
  try {
    for (const run of config.runs) runs.push(await limitRun({ port: redis.port, client }, run, config));
  } finally {
    client.disconnect();
    await redis.stop();
  }
  return { rounds: config.rounds, runs };
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
