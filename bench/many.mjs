/**
 * Sections 7-9, "many messages": the rate `messages.sendMany` achieves against the sandbox's
 * per-second limit, the heap each in-flight `sendMany` item holds, and the polls `trackDeliveries`
 * spends per status change. Servers and the measured client each run in a process of their own
 * (many-child.mjs, with --expose-gc); every loop here is bounded by a deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { forkChild } from './ipc.mjs';
import { round } from './stats.mjs';

const CLIENT = new URL('./many-child.mjs', import.meta.url);

/**
 * Section 7: `sendMany` over `messages` sends, `concurrency` at a time, against a sandbox limited
 * to `perSecond` sends per second; the achieved rate is measured on the sandbox's clock.
 * @param {{ messages: number, perSecond: number, concurrency: number }} config
 */
export async function benchSendManyRate(config) {
  const sandbox = await forkChild(new URL('./rate-sandbox-child.mjs', import.meta.url), [
    String(config.perSecond),
    String(config.messages),
  ]);
  /** @type {import('./ipc.mjs').Child | undefined} */
  let client;
  try {
    client = await forkChild(CLIENT, [], { execArgv: ['--expose-gc'] });
    const { url, key } = sandbox.ready;
    const run = await client.call('send', { url, key, messages: config.messages, concurrency: config.concurrency });
    const server = await sandbox.call('stats');
    const sent = run.byStatus.sent ?? 0;
    return {
      messages: config.messages,
      concurrency: config.concurrency,
      limitPerSecond: config.perSecond,
      accepted: server.accepted,
      achievedPerSecond: round(server.achievedPerSecond, 1),
      ratio: round(server.achievedPerSecond / config.perSecond, 3),
      maxAcceptedIn1s: server.maxIn1s,
      rejected429: server.rejected429,
      // What the client's rate gate (and retries) announced on tenant-messaging:rate-limited.
      clientWaits: run.pauses,
      stored: server.stored,
      duplicates: server.duplicates,
      sent,
      failed: config.messages - sent,
      byStatus: run.byStatus,
      firstError: run.firstError,
      totalMs: round(run.totalMs, 0),
    };
  } finally {
    await client?.close();
    await sandbox.close();
  }
}

/**
 * Section 8: the heap a `sendMany` holds per item in flight. A server (its own process) holds
 * every answer; `inFlight` sends start at once; the server sees as many as the client's pool has
 * sockets, and the SDK's connection gate holds the rest (part of the cost, so counted).
 * @param {{ inFlight: number, maxHoldMs: number, deadlineMs: number }} config
 */
export async function benchSendManyHeap(config) {
  const server = await forkChild(new URL('./hold-server-child.mjs', import.meta.url), [String(config.maxHoldMs)]);
  /** @type {import('./ipc.mjs').Child | undefined} */
  let client;
  try {
    client = await forkChild(CLIENT, [], { execArgv: ['--expose-gc'] });
    const { heapBefore } = await client.call('prepareHeld', { url: server.ready.url, count: config.inFlight });
    await server.call('hold');
    const { generators } = await client.call('startHeld');
    const atServer = await settled(server, config.deadlineMs);
    const { heapInFlight } = await client.call('measureHeld');
    const released = await server.call('release');
    const finished = await client.call('finishHeld');
    return {
      inFlight: config.inFlight,
      generators,
      heldAtServer: atServer,
      heldInClient: config.inFlight - atServer,
      released,
      heapPerInFlightItemBytes: round((heapInFlight - heapBefore) / config.inFlight, 0),
      heapInFlightTotalMB: round((heapInFlight - heapBefore) / 1024 / 1024, 2),
      sent: finished.byStatus.sent ?? 0,
      byStatus: finished.byStatus,
      firstError: finished.firstError,
    };
  } finally {
    await client?.close();
    await server.close();
  }
}

/**
 * Waits until the holding server's count of held requests stops growing (for 100 ms): every send
 * the client's pool can carry has arrived, the others wait in the client. Returns that count.
 * @param {import('./ipc.mjs').Child} server
 * @param {number} deadlineMs
 */
async function settled(server, deadlineMs) {
  const deadline = performance.now() + deadlineMs;
  let last = -1;
  let stableSince = performance.now();
  while (performance.now() < deadline) {
    const { holdingNow } = await server.call('stats');
    if (holdingNow !== last) {
      last = holdingNow;
      stableSince = performance.now();
    } else if (holdingNow > 0 && performance.now() - stableSince >= 100) return holdingNow;
    await sleep(10);
  }
  throw new Error(`the held sends did not settle within ${deadlineMs} ms (held: ${last})`);
}

/**
 * Section 9: `trackDeliveries` over `ids` logs of the sandbox (its own process), turning
 * delivered `minDelayMs`..`maxDelayMs` after the start, polled under the client's cap. Polls are
 * the requests the sandbox served; updates are what the iteration yielded.
 * @param {{ ids: number, minDelayMs: number, maxDelayMs: number, maxPerSecond: number, maxConcurrent: number, interval: number, timeout: number }} config
 */
export async function benchTrackDeliveries(config) {
  const sandbox = await forkChild(
    new URL('./sandbox-child.mjs', import.meta.url),
    [String(config.ids), String(config.minDelayMs), String(config.maxDelayMs)],
    { timeoutMs: 120_000 },
  );
  /** @type {import('./ipc.mjs').Child | undefined} */
  let client;
  try {
    client = await forkChild(CLIENT, [], { execArgv: ['--expose-gc'] });
    const { url, key, ids } = sandbox.ready;
    const polling = { maxPerSecond: config.maxPerSecond, maxConcurrent: config.maxConcurrent };
    await client.call('prepareTrack', { url, key, id: ids[0], polling });
    await sandbox.call('go');
    const run = await client.call('track', { ids, interval: config.interval, timeout: config.timeout });
    const server = await sandbox.call('stats');
    const updates = Object.entries(run.byStatus)
      .filter(([status]) => status !== 'timeout' && status !== 'failed')
      .reduce((sum, [, n]) => sum + n, 0);
    return {
      ids: ids.length,
      maxPerSecondCap: config.maxPerSecond,
      intervalMs: config.interval,
      flipDelayMs: [config.minDelayMs, config.maxDelayMs],
      polls: server.requests,
      updates,
      pollsPerUpdate: updates > 0 ? round(server.requests / updates, 3) : null,
      byStatus: run.byStatus,
      settled: (run.byStatus.delivered ?? 0) + (run.byStatus.read ?? 0),
      allSettled: (run.byStatus.delivered ?? 0) + (run.byStatus.read ?? 0) === ids.length,
      timedOut: run.byStatus.timeout ?? 0,
      failed: run.byStatus.failed ?? 0,
      firstError: run.firstError,
      maxRequestsIn1s: server.maxRequestsIn1s,
      totalMs: round(run.totalMs, 0),
    };
  } finally {
    await client?.close();
    await sandbox.close();
  }
}
