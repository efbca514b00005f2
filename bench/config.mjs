/** Counts of the full run and of `--quick` (CI smoke: small counts, finishes in < 30 s), and the targets. */

/**
 * Section 13's runs of the bin: files of `mixed` sizes with 1 row in 10 sent (the others refused
 * by its checks, no request), then one of `sent` rows, every one sent.
 * @param {number[]} mixed
 * @param {number} sent
 * @param {number} deadlineMs
 */
function memoryRuns(mixed, sent, deadlineMs) {
  const runs = [...mixed.map((rows) => ({ rows, sentEvery: 10 })), { rows: sent, sentEvery: 1 }];
  return { concurrency: 16, deadlineMs, runs };
}

/**
 * Section 14's runs: `messages` seeded sends from 12 sender numbers (a few busy), lanes of 5 sends
 * per sliding second per sender and 400 ms per recipient (the sandbox enforcing the same), through
 * the fleet at each of `workers` processes (4 jobs at a time each) and through one `sendMany` (8).
 * @param {number} messages @param {number[]} workers @param {number} deadlineMs
 */
function lanesConfig(messages, workers, deadlineMs) {
  return {
    messages,
    senders: 12,
    perSender: 5,
    minInterval: 400,
    keyWideRps: 1_000,
    workers,
    concurrency: 4,
    sendManyConcurrency: 8,
    deadlineMs,
    seed: 29,
  };
}

/**
 * Every run of section 15's grid: R x r x processes, then the `kills`, `bullmq` and `postgres` runs.
 * @param {{ rates: number[], answers: number[], processes: number[], kills: object[], bullmq: object[], postgres: object[] }} grid
 */
function limitRuns({ rates, answers, processes, kills, bullmq, postgres }) {
  /** @type {import('./fleet-limit.mjs').LimitRun[]} */
  const runs = [];
  for (const rate of rates)
    for (const answerMs of answers) for (const p of processes) runs.push({ rate, answerMs, processes: p });
  for (const run of kills) runs.push({ ...run, kill: true });
  for (const run of bullmq) runs.push({ ...run, bullmq: true });
  for (const run of postgres) runs.push({ ...run, backend: 'postgres' });
  return runs;
}

/**
 * Section 15's runs (issue 39): every limit R of `rates` x answer time x worker processes, `rounds`
 * rounds of R sends (plus one) each; then one worker of 3 SIGKILLed mid-run, and BullMQ's own
 * limiter alone on the same sends, at the R of `compare`; then the fleet on PostgreSQL at the R of
 * `postgres`, 5 ms answers, 1 and 3 processes, and BullMQ's limiter alone there.
 * @param {number} rounds @param {number[]} rates @param {number[]} compare @param {number[]} postgres @param {number} deadlineMs
 */
function fleetLimitConfig(rounds, rates, compare, postgres, deadlineMs) {
  return {
    rounds,
    deadlineMs,
    runs: limitRuns({
      rates,
      answers: [5, 300],
      processes: [1, 3],
      kills: compare.map((rate) => ({ rate, answerMs: 5, processes: 3 })),
      bullmq: compare.map((rate) => ({ rate, answerMs: 5, processes: 1 })),
      postgres: postgres.flatMap((rate) => [
        ...[1, 3].map((processes) => ({ rate, answerMs: 5, processes })),
        { rate, answerMs: 5, processes: 1, bullmq: true },
      ]),
    }),
  };
}

export const FULL = Object.freeze({
  throughput: { requests: 8_000, warmup: 4_000, concurrency: 16, rounds: 21, deadlineMs: 60_000 },
  upload: { megabytes: 200, rounds: 5 },
  coldStart: { runs: 15 },
  // The sandbox serves about 600 polls/s on this machine: the cap sits below that, so it is the cap being measured.
  polling: {
    waits: 10_000,
    minDelayMs: 1_000,
    maxDelayMs: 5_000,
    maxPerSecond: 500,
    maxConcurrent: 16,
    interval: 1_000,
    timeout: 55_000,
  },
  many: {
    rate: { messages: 1_500, perSecond: 100, concurrency: 8 },
    heap: { inFlight: 2_000, maxHoldMs: 10_000, deadlineMs: 10_000 },
    track: {
      ids: 10_000,
      minDelayMs: 1_000,
      maxDelayMs: 5_000,
      maxPerSecond: 500,
      maxConcurrent: 16,
      interval: 1_000,
      timeout: 55_000,
    },
  },
  // Section 10, reported and not a target: 3 runs of 500 messages (a send and a poll each, about
  // 21 s at the 50/s limit), then the memory runs. About 75 s in all.
  fleet: {
    messages: 500,
    limit: 50,
    deadlineMs: 40_000,
    workers: [1, 2, 4],
    memory: { waiting: 5_000, tracked: 1_000, deadlineMs: 30_000 },
  },
  // Section 11, reported and not a target: transactions adding to the outbox, 8 at a time.
  outbox: { messages: 2_000, concurrency: 8, deadlineMs: 30_000 },
  replicas: { sends: 2_000 },
  // Section 13: the bin's peak RSS against file size. About 35 s.
  sendManyMemory: memoryRuns([10_000, 100_000, 1_000_000], 100_000, 120_000),
  // Section 14, reported and not a target: a mixed workload under the lanes, at 1 and 4 worker
  // processes and in one process (sendMany). The lanes allow it 13 s (13.6 s in queue order); about 45 s in all.
  lanes: lanesConfig(300, [1, 4], 40_000),
  // Section 15, reported and not a target: 24 runs of 6 rounds, 4 kills, 4 with BullMQ's limiter. About 5 minutes.
  fleetLimit: fleetLimitConfig(6, [1, 2, 5, 10, 20, 50], [2, 5, 10, 50], [10, 50], 40_000),
});

export const QUICK = Object.freeze({
  throughput: { requests: 500, warmup: 200, concurrency: 16, rounds: 2, deadlineMs: 20_000 },
  upload: { megabytes: 10, rounds: 1 },
  coldStart: { runs: 3 },
  polling: {
    waits: 500,
    minDelayMs: 200,
    maxDelayMs: 1_000,
    maxPerSecond: 400,
    maxConcurrent: 16,
    interval: 300,
    timeout: 15_000,
  },
  many: {
    rate: { messages: 200, perSecond: 100, concurrency: 8 },
    heap: { inFlight: 300, maxHoldMs: 10_000, deadlineMs: 10_000 },
    track: {
      ids: 500,
      minDelayMs: 200,
      maxDelayMs: 1_000,
      maxPerSecond: 400,
      maxConcurrent: 16,
      interval: 300,
      timeout: 15_000,
    },
  },
  fleet: {
    messages: 40,
    limit: 50,
    deadlineMs: 15_000,
    workers: [1, 2, 4],
    memory: { waiting: 300, tracked: 100, deadlineMs: 15_000 },
  },
  outbox: { messages: 100, concurrency: 4, deadlineMs: 15_000 },
  replicas: { sends: 200 },
  sendManyMemory: memoryRuns([10_000, 100_000], 10_000, 60_000),
  lanes: lanesConfig(80, [1, 4], 20_000),
  fleetLimit: fleetLimitConfig(3, [1, 2, 5, 10, 20, 50], [2, 10, 50], [10, 50], 30_000),
});

/**
 * `--smoke`, for the test that keeps the bench from rotting (bench/smoke.test.ts): the least
 * that runs every section and writes every figure. Its figures mean nothing.
 */
export const SMOKE = Object.freeze({
  throughput: { requests: 100, warmup: 50, concurrency: 8, rounds: 1, deadlineMs: 20_000 },
  upload: { megabytes: 2, rounds: 1 },
  coldStart: { runs: 1 },
  polling: {
    waits: 40,
    minDelayMs: 100,
    maxDelayMs: 300,
    maxPerSecond: 400,
    maxConcurrent: 16,
    interval: 100,
    timeout: 10_000,
  },
  many: {
    rate: { messages: 30, perSecond: 100, concurrency: 8 },
    heap: { inFlight: 40, maxHoldMs: 10_000, deadlineMs: 10_000 },
    track: {
      ids: 40,
      minDelayMs: 100,
      maxDelayMs: 300,
      maxPerSecond: 400,
      maxConcurrent: 16,
      interval: 100,
      timeout: 10_000,
    },
  },
  fleet: {
    messages: 10,
    limit: 50,
    deadlineMs: 15_000,
    workers: [1],
    memory: { waiting: 30, tracked: 10, deadlineMs: 15_000 },
  },
  outbox: { messages: 10, concurrency: 2, deadlineMs: 15_000 },
  replicas: { sends: 20 },
  sendManyMemory: memoryRuns([1_000, 5_000], 1_000, 30_000),
  lanes: lanesConfig(16, [1], 15_000),
  // One round of one fleet run on each datastore: about 2 s each, most of it starting the
  // datastore, the sandbox and a worker.
  fleetLimit: {
    rounds: 1,
    deadlineMs: 15_000,
    runs: [
      { rate: 20, answerMs: 5, processes: 1 },
      { rate: 20, answerMs: 5, processes: 1, backend: 'postgres' },
    ],
  },
});

/** The targets (issue 5, and issue 28's send-many memory); `at` is where the figure lives in results.json, `max`/`min` its bound. */
export const TARGETS = Object.freeze([
  { name: 'messages.get throughput vs raw undici', at: 'get.ratio', min: 0.85 },
  { name: 'messages.send throughput vs raw undici', at: 'send.ratio', min: 0.85 },
  { name: 'media upload peak RSS above baseline (MB)', at: 'upload.sdkPeakRssAboveBaselineMB', max: 40 },
  { name: 'media upload time vs raw', at: 'upload.timeRatio', max: 1.2 },
  { name: 'cold import + construct (ms)', at: 'coldStart.importConstructMs', max: 49 },
  { name: 'cold first messages.get vs raw', at: 'coldStart.firstGetRatio', max: 1.15 },
  { name: 'polling: busiest 1 s window vs cap', at: 'polling.capUsage', max: 1 },
  { name: 'polling: heap per pending wait (bytes)', at: 'polling.heapPerPendingWaitBytes', max: 2048 },
  { name: 'polling: every wait resolved delivered', at: 'polling.allResolved', equals: true },
  { name: 'sendMany achieved rate vs sandbox limit', at: 'many.rate.ratio', min: 0.95 },
  { name: 'sendMany: no message stored twice', at: 'many.rate.duplicates', equals: 0 },
  { name: 'sendMany: no item failed', at: 'many.rate.failed', equals: 0 },
  { name: 'sendMany: heap per in-flight item (bytes)', at: 'many.heap.heapPerInFlightItemBytes', max: 8192 },
  { name: 'trackDeliveries: polls per update', at: 'many.track.pollsPerUpdate', max: 1.3 },
  { name: 'trackDeliveries: every id settled delivered', at: 'many.track.allSettled', equals: true },
  { name: 'connections (SDK) vs limit', at: 'connections.sdkConnections', maxAt: 'connections.limit' },
  // Issue 28: the bin streams the file; a 1,000,000-row file (the largest of a full run) stays below 150 MB.
  { name: 'send-many peak RSS, largest file (MB)', at: 'sendManyMemory.peakRssMBLargest', max: 150 },
]);
