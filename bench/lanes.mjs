/**
 * Section 14, "lanes" (reported, not a target; issue 29): a seeded mixed workload (12 sender
 * numbers, some much busier than others; recipients mostly distinct, a few getting 3-6 messages in
 * a burst) sent under per-sender lanes and per-recipient pacing, against the sandbox enforcing the
 * same lanes (a 429 would mean the SDK broke one). The figure is the run's duration against the
 * shortest the lanes allow for that workload:
 *
 *   allowedMs = the largest of, per sender with n sends at L per sliding second (a place held a
 *               second past each answer), (ceil(n / L) - 1) s; per recipient with k sends,
 *               (k - 1) x minInterval
 *   actualMs  = first accepted send to last, on the sandbox's clock
 *   share     = allowedMs / actualMs (1.0: as fast as the lanes allow)
 *
 * and, beside it, `queueOrderMs`: the span the SDK's own rule gives the workload when the sends
 * reach their lanes in queue order and answers are instant (lanesQueueOrderMs, a simulation), and
 * `queueOrderShare = queueOrderMs / actualMs`: what is left once the lanes' FIFO order is paid.
 *
 * Runs: the BullMQ fleet on Redis (test/integration/bullmq/crash-worker.mjs processes, lanes in the datastore)
 * at each worker count, and one process's `client.messages.sendMany` for comparison. The key-wide
 * limit does not bind: off at the sandbox and in the one-process client; the workers need one for
 * their lanes (crash-worker.mjs) and get `keyWideRps` (1,000/s), far above the 12 x 5/s the
 * lanes let through. PostgreSQL is not run here (section 10 compares the backends; the lanes test
 * runs both). Without `redis-server` the fleet runs report themselves skipped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { hasRedis, startRedis } from '../test/helpers/redis.ts';
import { forkChild } from './ipc.mjs';
import { round } from './stats.mjs';
import { startWorkers, stopWorkers } from './workers.mjs';

const CHILD = new URL('./lanes-child.mjs', import.meta.url);

/**
 * @typedef {{ messages: number, senders: number, perSender: number, minInterval: number,
 *   keyWideRps: number, workers: number[], concurrency: number, sendManyConcurrency: number,
 *   deadlineMs: number, seed: number }} LanesConfig
 * @typedef {import('./lanes-child.mjs').LaneItem} LaneItem
 * @typedef {{ allowedMs: number, queueOrderMs: number }} Bounds
 */

/** A small seeded generator (mulberry32): the workload replays exactly. @param {number} seed */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The sender numbers: +15550001001, +15550001002, ... @param {number} count */
const senderPhones = (count) => Array.from({ length: count }, (_, i) => `+1555000${String(1001 + i)}`);

/**
 * The workload, in the queue's order. Senders are drawn with a skew: the first quarter of them
 * weigh 4, the others 1 (with 12: 3 busy senders carry about 57% of the sends). One recipient in
 * 40 sends gets 3-6 messages, one after the other in the queue (a burst, from senders drawn as the
 * others); every other send goes to a recipient of its own.
 * @param {{ messages: number, senders: number, seed: number }} config
 * @returns {LaneItem[]}
 */
export function lanesWorkload({ messages, senders, seed }) {
  const random = seeded(seed);
  const phones = senderPhones(senders);
  const busy = Math.max(1, Math.round(senders / 4));
  const weights = phones.map((_, i) => (i < busy ? 4 : 1));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const pickSender = () => {
    let r = random() * total;
    for (let i = 0; i < phones.length; i++) {
      r -= /** @type {number} */ (weights[i]);
      if (r < 0) return /** @type {string} */ (phones[i]);
    }
    return /** @type {string} */ (phones.at(-1));
  };
  // From +15557650001 on: the sandbox refuses a recipient ending in 0000 (SANDBOX_PHONES.unreachable).
  let nextRecipient = 1;
  const recipient = () => `+1555765${String(nextRecipient++).padStart(4, '0')}`;
  /** @type {{ sender: string, recipient: string }[][]} */
  const bursts = [];
  let repeatedSends = 0;
  for (let g = 0; g < Math.max(1, Math.round(messages / 40)); g++) {
    const size = Math.min(3 + Math.floor(random() * 4), messages - repeatedSends);
    if (size < 2) break;
    const to = recipient();
    bursts.push(Array.from({ length: size }, () => ({ sender: pickSender(), recipient: to })));
    repeatedSends += size;
  }
  /** @type {{ sender: string, recipient: string }[][]} */
  const order = Array.from({ length: messages - repeatedSends }, () => [
    { sender: pickSender(), recipient: recipient() },
  ]);
  for (const burst of bursts) order.splice(Math.floor(random() * (order.length + 1)), 0, burst);
  return order.flat().map((send, i) => ({ id: `lanes-${i}`, ...send, content: `lanes ${i}` }));
}

/**
 * The shortest first-to-last span the lanes allow for `items`, and the lane that sets it.
 * @param {LaneItem[]} items @param {{ perSender: number, minInterval: number }} lanes
 */
export function lanesAllowance(items, { perSender, minInterval }) {
  // As the SDK takes it (core/rate/lanes.ts senderLane): whole places per sliding second.
  const limit = perSender >= 1 ? Math.floor(perSender) : 1;
  const windowMs = perSender >= 1 ? 1_000 : Math.ceil(1_000 / perSender);
  /** @param {(item: LaneItem) => string} key */
  const countBy = (key) => {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
    return counts;
  };
  const senders = countBy((item) => item.sender);
  const recipients = countBy((item) => item.recipient);
  let allowedMs = 0;
  let binding = 'none';
  for (const [sender, n] of senders) {
    const ms = (Math.ceil(n / limit) - 1) * windowMs;
    if (ms > allowedMs) [allowedMs, binding] = [ms, `sender ${sender} (${n} sends)`];
  }
  const repeated = [...recipients].filter(([, k]) => k > 1);
  for (const [recipient, k] of repeated) {
    const ms = (k - 1) * minInterval;
    if (ms > allowedMs) [allowedMs, binding] = [ms, `recipient ${recipient} (${k} sends)`];
  }
  return {
    allowedMs,
    binding,
    sendsBySender: Object.fromEntries([...senders].sort((a, b) => b[1] - a[1])),
    repeatedRecipients: Object.fromEntries(repeated),
  };
}

/**
 * The span the SDK's own rule gives `items` when they reach their lanes in queue order and every
 * answer is instant: a simulation of core/rate/lanes.ts (the recipient's lane, then the sender's;
 * one FIFO per lane; a place held from admission until a window after the send). At least
 * `allowedMs`, and more when a recipient's burst comes from a busy sender: each of its sends joins
 * the back of that sender's lane, so the burst is spaced by the sender's rounds, not minInterval.
 * @param {LaneItem[]} items @param {{ perSender: number, minInterval: number }} lanes
 */
export function lanesQueueOrderMs(items, { perSender, minInterval }) {
  const limit = perSender >= 1 ? Math.floor(perSender) : 1;
  const windowMs = perSender >= 1 ? 1_000 : Math.ceil(1_000 / perSender);
  /** @typedef {{ limit: number, windowMs: number, ends: number[], fifo: number[] }} SimLane */
  /** @type {Map<string, SimLane>} */
  const lanes = new Map();
  /** @param {string} key @param {number} max @param {number} ms */
  const laneOf = (key, max, ms) => {
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { limit: max, windowMs: ms, ends: [], fifo: [] };
      lanes.set(key, lane);
    }
    return lane;
  };
  /** @param {SimLane} lane @param {number} now */
  const hasRoom = (lane, now) => lane.ends.filter((end) => end > now).length < lane.limit;
  /** Each item's two lanes; `routes[i]`, the ones it has still to pass. */
  const lanesOfItem = items.map((item) => [
    laneOf(`r:${item.recipient}`, 1, minInterval),
    laneOf(`s:${item.sender}`, limit, windowMs),
  ]);
  const routes = lanesOfItem.map((both) => [...both]);
  /** @type {number[]} */
  const sentAt = [];
  /** Passes item `i` through the lanes it can now; it waits in the first it cannot (or where others wait). @param {number} i @param {number} now */
  const advance = (i, now) => {
    const route = /** @type {SimLane[]} */ (routes[i]);
    while (route.length > 0) {
      const lane = /** @type {SimLane} */ (route[0]);
      if (lane.fifo.length > 0 || !hasRoom(lane, now)) {
        lane.fifo.push(i);
        return false;
      }
      route.shift();
      lane.ends.push(Number.POSITIVE_INFINITY);
    }
    sentAt[i] = now;
    // Instant answers: each place the send held ends a window from now.
    for (const lane of /** @type {SimLane[]} */ (lanesOfItem[i]))
      lane.ends[lane.ends.indexOf(Number.POSITIVE_INFINITY)] = now + lane.windowMs;
    return true;
  };
  let sent = 0;
  for (let i = 0; i < items.length; i++) if (advance(i, 0)) sent++;
  let now = 0;
  // Bounded: each step sends at least one item, or moves time on to the next place's end.
  for (let steps = 0; sent < items.length && steps < 100 * items.length + 1_000; steps++) {
    let moved = true;
    while (moved) {
      moved = false;
      for (const lane of lanes.values()) {
        while (lane.fifo.length > 0 && hasRoom(lane, now)) {
          // The head takes its place here, then goes on as a newcomer to the next lane (behind its waiters).
          const i = /** @type {number} */ (lane.fifo.shift());
          /** @type {SimLane[]} */ (routes[i]).shift();
          lane.ends.push(Number.POSITIVE_INFINITY);
          moved = true;
          if (advance(i, now)) sent++;
        }
      }
    }
    if (sent >= items.length) break;
    // Every lane with a waiter is full: time moves on to the first place that ends.
    let next = Number.POSITIVE_INFINITY;
    for (const lane of lanes.values())
      if (lane.fifo.length > 0) for (const end of lane.ends) if (end > now && end < next) next = end;
    if (next === Number.POSITIVE_INFINITY) break;
    now = next;
  }
  return sent === items.length ? Math.max(...sentAt) - Math.min(...sentAt) : Number.NaN;
}

/**
 * The figures of one run, from the sandbox's stats.
 * @param {any} stats @param {Bounds} bounds @param {LanesConfig} config
 */
function figures(stats, { allowedMs, queueOrderMs }, config) {
  const actualMs = stats.lastAt - stats.firstAt;
  const senders = /** @type {{ sends: number, busiestSecond: number, spanMs: number }[]} */ (
    Object.values(stats.bySender)
  );
  const recipients = /** @type {{ minGapMs: number }[]} */ (Object.values(stats.byRecipient));
  const minGap = Math.min(...recipients.map((r) => r.minGapMs));
  // The sender with the most sends: its own first-to-last span, against (ceil(n / L) - 1) s.
  const busiest = senders.reduce((a, b) => (b.sends > a.sends ? b : a), { sends: 0, busiestSecond: 0, spanMs: 0 });
  return {
    accepted: stats.accepted,
    refused: stats.requests - stats.accepted,
    allowedMs,
    actualMs: round(actualMs, 0),
    share: actualMs > 0 ? round(allowedMs / actualMs, 3) : null,
    queueOrderShare: actualMs > 0 ? round(queueOrderMs / actualMs, 3) : null,
    busiestSenderSecond: Math.max(0, ...senders.map((s) => s.busiestSecond)),
    perSenderLimit: config.perSender,
    busiestSenderSends: busiest.sends,
    busiestSenderSpanMs: round(busiest.spanMs, 0),
    minRecipientGapMs: Number.isFinite(minGap) ? round(minGap, 0) : null,
    minInterval: config.minInterval,
    rejected429: stats.rejected429,
    stored: stats.stored,
    duplicates: stats.duplicates,
    /** The send times on the sandbox's clock, from the first (for a closer look; not in results.json). */
    sendOffsets: /** @type {number[]} */ (stats.sendTimes).map((t) => round(t - stats.firstAt, 0)),
  };
}

/** @param {LanesConfig} config @param {string[]} senders */
const startLaneSandbox = (config, senders) =>
  forkChild(CHILD, [
    'sandbox',
    JSON.stringify({
      senders,
      messages: config.messages,
      perSender: config.perSender,
      minInterval: config.minInterval,
    }),
  ]);

/**
 * The fleet on Redis: `workers` processes (concurrency `config.concurrency` each) send `items`
 * enqueued with one `queue.sendMany`, until every one has ended or the deadline passes.
 * @param {number} port @param {number} workers @param {LaneItem[]} items @param {Bounds} bounds @param {LanesConfig} config
 */
async function fleetRun(port, workers, items, bounds, config) {
  const { MessagingQueue } = await import('../dist/bullmq/index.js');
  const senders = senderPhones(config.senders);
  const sandbox = await startLaneSandbox(config, senders);
  const name = `bench-lanes-${workers}-${process.pid}`;
  const queue = new MessagingQueue({ connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null }, name });
  /** @type {import('node:child_process').ChildProcess[]} */
  let fleet = [];
  try {
    fleet = await startWorkers(workers, {
      REDIS_PORT: String(port),
      QUEUE: name,
      BASE_URL: sandbox.ready.url,
      API_KEY: sandbox.ready.key,
      CONCURRENCY: String(config.concurrency),
      RPS: String(config.keyWideRps),
      LANES: JSON.stringify({
        perSender: { requestsPerSecond: config.perSender },
        perRecipient: { minInterval: config.minInterval },
      }),
    });
    const started = performance.now();
    await queue.sendMany(
      items.map((item) => ({
        id: item.id,
        params: { sender_phone: item.sender, to_phone: item.recipient, type: 'text', content: item.content },
      })),
    );
    const deadline = started + config.deadlineMs;
    let counts = await queue.counts();
    while (counts.sent + counts.failed + counts.unknown < items.length && performance.now() < deadline) {
      await sleep(50);
      counts = await queue.counts();
    }
    const totalMs = performance.now() - started;
    const stats = await sandbox.call('stats', { recipients: repeatedOf(items) });
    return {
      run: 'fleet',
      backend: 'redis',
      workers,
      concurrency: config.concurrency,
      messages: items.length,
      ...figures(stats, bounds, config),
      sent: counts.sent,
      failed: items.length - counts.sent,
      totalMs: round(totalMs, 0),
    };
  } finally {
    await stopWorkers(fleet);
    await queue.close();
    await sandbox.close();
  }
}

/**
 * One process: `client.messages.sendMany(items, { concurrency })` with the same lanes.
 * @param {LaneItem[]} items @param {Bounds} bounds @param {LanesConfig} config
 */
async function sendManyRun(items, bounds, config) {
  const sandbox = await startLaneSandbox(config, senderPhones(config.senders));
  /** @type {import('./ipc.mjs').Child | undefined} */
  let client;
  try {
    client = await forkChild(CHILD, ['client']);
    const sending = client.call('sendMany', {
      url: sandbox.ready.url,
      key: sandbox.ready.key,
      items,
      concurrency: config.sendManyConcurrency,
      perSender: config.perSender,
      minInterval: config.minInterval,
    });
    // Past the deadline the client is closed (finally): its call then rejects, unheard.
    sending.catch(() => {});
    const run = await Promise.race([
      sending,
      sleep(config.deadlineMs, undefined, { ref: false }).then(() => {
        throw new Error(`section 14: sendMany did not end within ${config.deadlineMs} ms`);
      }),
    ]);
    const stats = await sandbox.call('stats', { recipients: repeatedOf(items) });
    const sent = run.byStatus.sent ?? 0;
    return {
      run: 'sendMany',
      workers: 1,
      concurrency: config.sendManyConcurrency,
      messages: items.length,
      ...figures(stats, bounds, config),
      sent,
      failed: items.length - sent,
      firstError: run.firstError,
      totalMs: round(run.totalMs, 0),
    };
  } finally {
    await client?.close();
    await sandbox.close();
  }
}

/** The recipients of more than one send. @param {LaneItem[]} items */
function repeatedOf(items) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const item of items) counts.set(item.recipient, (counts.get(item.recipient) ?? 0) + 1);
  return [...counts].filter(([, k]) => k > 1).map(([recipient]) => recipient);
}

/**
 * Section 14. With `withOffsets`, each run also gives its send times (ms from its first send, on
 * the sandbox's clock), for a closer look; results.json does not keep them.
 * @param {LanesConfig} config @param {{ withOffsets?: boolean }} [options]
 */
export async function benchLanes(config, { withOffsets = false } = {}) {
  const items = lanesWorkload(config);
  const allowance = lanesAllowance(items, config);
  const queueOrderMs = lanesQueueOrderMs(items, config);
  const workload = {
    messages: items.length,
    senders: config.senders,
    perSender: config.perSender,
    minInterval: config.minInterval,
    keyWide: `off at the sandbox and in the sendMany client; ${config.keyWideRps}/s in the workers (does not bind)`,
    ...allowance,
    queueOrderMs,
  };
  const runs = [];
  /** @type {string | undefined} */
  let fleetSkipped;
  if (hasRedis) {
    const redis = await startRedis();
    try {
      for (const workers of config.workers) runs.push(await fleetRun(redis.port, workers, items, workload, config));
    } finally {
      await redis.stop();
    }
  } else fleetSkipped = 'redis-server not installed (apt-get install -y redis-server)';
  runs.push(await sendManyRun(items, workload, config));
  return {
    workload,
    runs: runs.map(({ sendOffsets, ...run }) => (withOffsets ? { ...run, sendOffsets } : run)),
    ...(fleetSkipped ? { fleetSkipped } : {}),
  };
}

// `node bench/lanes.mjs [--quick|--smoke] [--offsets]`: this section alone, against the build.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { FULL, QUICK, SMOKE } = await import('./config.mjs');
  const { lanesRows, table } = await import('./report.mjs');
  const mode = process.argv.includes('--smoke') ? SMOKE : process.argv.includes('--quick') ? QUICK : FULL;
  const lanes = await benchLanes(mode.lanes, { withOffsets: process.argv.includes('--offsets') });
  process.stdout.write(
    `${table([['#', 'measure', 'SDK', 'raw / baseline', 'ratio', 'target'], ...lanesRows(lanes)])}\n`,
  );
  if (process.argv.includes('--offsets')) process.stdout.write(`${JSON.stringify(lanes, null, 1)}\n`);
}
