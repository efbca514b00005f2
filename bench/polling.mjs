/**
 * Section 5: N concurrent `waitForDelivery` calls against the sandbox (its own process) whose logs
 * turn delivered 1-5 s after the start, through one client with a polling cap. The measured client
 * runs in a fresh process with --expose-gc, so its heap figures are its own.
 */
import { forkChild } from './ipc.mjs';
import { round } from './stats.mjs';

/**
 * @param {{ waits: number, minDelayMs: number, maxDelayMs: number, maxPerSecond: number, maxConcurrent: number, interval: number, timeout: number }} config
 */
export async function benchPolling(config) {
  const sandbox = await forkChild(
    new URL('./sandbox-child.mjs', import.meta.url),
    [String(config.waits), String(config.minDelayMs), String(config.maxDelayMs)],
    { timeoutMs: 120_000 },
  );
  /** @type {import('./ipc.mjs').Child | undefined} */
  let client;
  try {
    client = await forkChild(new URL('./polling-child.mjs', import.meta.url), [], {
      execArgv: ['--expose-gc'],
      onMessage: async (message) => {
        if (message?.go) client?.process.send({ went: await sandbox.call('go') });
      },
    });
    const { url, key, ids } = sandbox.ready;
    const polling = { maxPerSecond: config.maxPerSecond, maxConcurrent: config.maxConcurrent };
    const run = await client.call('run', {
      url,
      key,
      ids,
      polling,
      interval: config.interval,
      timeout: config.timeout,
    });
    const server = await sandbox.call('stats');
    return {
      waits: run.waits,
      maxPerSecondCap: config.maxPerSecond,
      maxConcurrent: config.maxConcurrent,
      intervalMs: config.interval,
      flipDelayMs: [config.minDelayMs, config.maxDelayMs],
      serverRequests: server.requests,
      serverConnections: server.connections,
      maxRequestsIn1s: server.maxRequestsIn1s,
      resolvedDelivered: run.delivered,
      rejected: run.rejected,
      firstRejection: run.firstRejection,
      allResolved: run.delivered === run.waits,
      heapPerPendingWaitBytes: round((run.heapPending - run.heapBefore) / run.waits, 0),
      heapPendingTotalMB: round((run.heapPending - run.heapBefore) / 1024 / 1024, 2),
      totalMs: round(run.totalMs, 0),
    };
  } finally {
    await client?.close();
    await sandbox.close();
  }
}
