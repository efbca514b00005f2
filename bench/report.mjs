/** Section table, target checks and results.json. */
import { writeFile } from 'node:fs/promises';
import { TARGETS } from './config.mjs';
import { round } from './stats.mjs';

/** @param {any} results @param {string} path */
const at = (results, path) => path.split('.').reduce((value, key) => value?.[key], results);

/**
 * Checks every target against the figures (a missing figure fails).
 * @param {any} results
 */
export function checkTargets(results) {
  return TARGETS.map((target) => {
    const value = at(results, target.at);
    const bound = target.maxAt ? at(results, target.maxAt) : (target.max ?? target.min ?? target.equals);
    let pass;
    if ('equals' in target) pass = value === target.equals;
    else if (typeof value !== 'number' || typeof bound !== 'number') pass = false;
    else pass = 'min' in target ? value >= bound : value <= bound;
    const op = 'equals' in target ? '=' : 'min' in target ? '>=' : '<=';
    return { name: target.name, value, target: `${op} ${bound}`, pass };
  });
}

/** @param {unknown[][]} rows */
export function table(rows) {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length))) ?? [];
  const line = (/** @type {unknown[]} */ row) =>
    `| ${row.map((cell, i) => String(cell).padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(rows[0] ?? []), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join(
    '\n',
  );
}

/** The printed table: one row per measured figure, side by side, with its target and verdict. @param {any} r */
export function formatTable(r, checks = checkTargets(r)) {
  const verdict = (/** @type {string} */ name) => {
    const check = checks.find((c) => c.name === name);
    return check ? `${check.target} ${check.pass ? 'PASS' : 'MISS'}` : '';
  };
  const rows = [
    ['#', 'measure', 'SDK', 'raw / baseline', 'ratio', 'target'],
    [
      '1',
      `messages.get req/s (${r.get.requests} x${r.get.rounds}, c=${r.get.concurrency})`,
      r.get.sdkPerSecond,
      r.get.rawPerSecond,
      r.get.ratio,
      verdict('messages.get throughput vs raw undici'),
    ],
    [
      '1',
      'messages.get client CPU us/req',
      r.get.sdkCpuMicrosPerRequest,
      r.get.rawCpuMicrosPerRequest,
      (r.get.rawCpuMicrosPerRequest / r.get.sdkCpuMicrosPerRequest).toFixed(3),
      'info',
    ],
    [
      '1t',
      'messages.get req/s, one tracing subscriber',
      r.getTraced.sdkPerSecond,
      r.getTraced.rawPerSecond,
      r.getTraced.ratio,
      'info',
    ],
    [
      '2',
      `messages.send req/s (${r.send.requests} x${r.send.rounds}, c=${r.send.concurrency})`,
      r.send.sdkPerSecond,
      r.send.rawPerSecond,
      r.send.ratio,
      verdict('messages.send throughput vs raw undici'),
    ],
    [
      '2',
      'messages.send client CPU us/req',
      r.send.sdkCpuMicrosPerRequest,
      r.send.rawCpuMicrosPerRequest,
      (r.send.rawCpuMicrosPerRequest / r.send.sdkCpuMicrosPerRequest).toFixed(3),
      'info',
    ],
    [
      '3',
      `${r.upload.megabytes} MB upload peak RSS above base, MB (max of ${r.upload.rounds})`,
      r.upload.sdkPeakRssAboveBaselineMB,
      r.upload.rawPeakRssAboveBaselineMB,
      '',
      verdict('media upload peak RSS above baseline (MB)'),
    ],
    [
      '3g',
      `${r.upload.megabytes} MB upload peak RSS above base, MB, both with a grown young generation (16 MB semi-space)`,
      r.upload.grownYoungGenerationPeakMB.sdk,
      r.upload.grownYoungGenerationPeakMB.raw,
      '',
      'info',
    ],
    [
      '3',
      `${r.upload.megabytes} MB upload time, ms (median)`,
      r.upload.sdkMs,
      r.upload.rawMs,
      r.upload.timeRatio,
      verdict('media upload time vs raw'),
    ],
    [
      '4a',
      `cold import + construct, ms (minus node -e 0 = ${r.coldStart.nodeBaselineMs})`,
      r.coldStart.importConstructMs,
      '',
      '',
      verdict('cold import + construct (ms)'),
    ],
    [
      '4b',
      `cold import + first get, ms (median of ${r.coldStart.runs})`,
      r.coldStart.sdkFirstGetMs,
      r.coldStart.rawFirstGetMs,
      r.coldStart.firstGetRatio,
      verdict('cold first messages.get vs raw'),
    ],
    [
      '4c',
      `main entry as imported: ${r.coldStart.mainEntry.files} files, KB (gzip ${round(r.coldStart.mainEntry.gzipBytes / 1024, 1)} KB)`,
      round(r.coldStart.mainEntry.bytes / 1024, 1),
      '',
      '',
      'info',
    ],
    [
      '5',
      `polling: busiest 1 s, req (${r.polling.waits} waits)`,
      r.polling.maxRequestsIn1s,
      `cap ${r.polling.maxPerSecondCap}`,
      r.polling.capUsage,
      verdict('polling: busiest 1 s window vs cap'),
    ],
    [
      '5',
      'polling: heap per pending wait, bytes',
      r.polling.heapPerPendingWaitBytes,
      '',
      '',
      verdict('polling: heap per pending wait (bytes)'),
    ],
    [
      '5',
      'polling: resolved delivered / total time',
      `${r.polling.resolvedDelivered}/${r.polling.waits}`,
      `${(r.polling.totalMs / 1000).toFixed(1)} s, ${r.polling.serverRequests} polls`,
      '',
      verdict('polling: every wait resolved delivered'),
    ],
    [
      '6',
      'TCP connections during runs 1+2',
      r.connections.sdkConnections,
      r.connections.rawConnections,
      '',
      `<= ${r.connections.limit} (${r.connections.limitSource}) ${checks.find((c) => c.name.startsWith('connections'))?.pass ? 'PASS' : 'MISS'}`,
    ],
    [
      '7',
      `sendMany rate / limit, req/s (${r.many.rate.messages}, c=${r.many.rate.concurrency}, sandbox clock)`,
      r.many.rate.achievedPerSecond,
      `limit ${r.many.rate.limitPerSecond}/s, ${r.many.rate.rejected429} x 429`,
      r.many.rate.ratio,
      verdict('sendMany achieved rate vs sandbox limit'),
    ],
    [
      '7',
      'sendMany: stored twice / failed',
      `${r.many.rate.duplicates} / ${r.many.rate.failed}`,
      `${r.many.rate.stored} stored, ${(r.many.rate.totalMs / 1000).toFixed(1)} s`,
      '',
      `${verdict('sendMany: no message stored twice')}, ${verdict('sendMany: no item failed')}`,
    ],
    [
      '8',
      `sendMany heap per in-flight item, bytes (${r.many.heap.inFlight} in flight)`,
      r.many.heap.heapPerInFlightItemBytes,
      `${r.many.heap.heldAtServer} at server, ${r.many.heap.heldInClient} in the gate`,
      '',
      verdict('sendMany: heap per in-flight item (bytes)'),
    ],
    [
      '9',
      `trackDeliveries polls per update (${r.many.track.ids} ids)`,
      r.many.track.polls,
      `${r.many.track.updates} updates, ${(r.many.track.totalMs / 1000).toFixed(1)} s`,
      r.many.track.pollsPerUpdate,
      `${verdict('trackDeliveries: polls per update')}, ${verdict('trackDeliveries: every id settled delivered')}`,
    ],
    ...fleetRows(r.fleet),
    ...outboxRows(r.outbox),
    ...replicaRows(r.replicas),
    ...sendManyMemoryRows(r.sendManyMemory, verdict),
    ...lanesRows(r.lanes),
    ...fleetLimitRows(r.fleetLimit),
  ];
  return table(rows);
}

/**
 * Section 13: the bin's peak RSS for each file, and the target on the largest.
 * @param {{ concurrency: number, runs: { kind: string, rows: number, sentEvery: number, fileMB: number, sent: number, refused: number, peakRssMB: number, seconds: number, rowsPerSecond: number }[], largestRows: number, growthMBSmallestToLargest: number | null }} memory
 * @param {(name: string) => string} verdict
 */
export function sendManyMemoryRows(memory, verdict) {
  const largest = memory.runs.find((run) => run.kind === 'mixed' && run.rows === memory.largestRows);
  return memory.runs.map((run) => [
    '13',
    `send-many peak RSS, MB: ${run.rows.toLocaleString('en-US')} rows (${run.fileMB} MB), ${run.kind === 'sent' ? 'every row sent' : `1 in ${run.sentEvery} sent, the rest refused by its checks`} (c=${memory.concurrency})`,
    run.peakRssMB,
    `${run.sent} sent, ${run.refused} refused, ${run.seconds} s`,
    run === largest
      ? `${(memory.growthMBSmallestToLargest ?? 0) >= 0 ? '+' : ''}${memory.growthMBSmallestToLargest} MB from the smallest`
      : '',
    run === largest ? verdict('send-many peak RSS, largest file (MB)') : 'info',
  ]);
}

/**
 * @typedef {{ run: 'fleet' | 'sendMany', workers: number, concurrency: number, messages: number,
 *   accepted: number, allowedMs: number, actualMs: number, share: number | null, queueOrderShare: number | null,
 *   busiestSenderSecond: number, perSenderLimit: number, minRecipientGapMs: number | null,
 *   minInterval: number, rejected429: number, duplicates: number, failed: number }} LanesRun
 * @typedef {{ messages: number, senders: number, perSender: number, minInterval: number,
 *   allowedMs: number, queueOrderMs: number, binding: string, sendsBySender: Record<string, number>,
 *   repeatedRecipients: Record<string, number> }} LanesWorkload
 */

/**
 * Section 14 (reported, not a target): the workload and what the lanes allow it, then each run's
 * duration against that (share 1.0: as fast as the lanes allow), with the lanes as the service saw them.
 * @param {{ workload: LanesWorkload, runs: LanesRun[], fleetSkipped?: string } | undefined} lanes
 */
export function lanesRows(lanes) {
  if (!lanes) return [['14', 'lanes', 'skipped', 'not run', '', 'info']];
  const w = lanes.workload;
  const sends = Object.values(w.sendsBySender);
  const repeated = Object.values(w.repeatedRecipients);
  const rows = [
    [
      '14',
      `lanes workload: ${w.messages} sends from ${sends.length} of ${w.senders} senders (${Math.max(...sends)} to ${Math.min(...sends)} each), ${repeated.length} recipient(s) getting ${Math.min(...repeated)}-${Math.max(...repeated)}, the rest 1; lanes ${w.perSender}/s per sender, ${w.minInterval} ms per recipient`,
      `${w.allowedMs} ms allowed`,
      `set by ${w.binding}; in queue order (FIFO lanes, instant answers) ${w.queueOrderMs} ms`,
      '',
      'info',
    ],
  ];
  if (lanes.fleetSkipped) rows.push(['14', 'lanes, fleet on Redis', 'skipped', lanes.fleetSkipped, '', 'info']);
  for (const run of lanes.runs) {
    const who =
      run.run === 'fleet'
        ? `fleet on Redis, ${run.workers} worker process${run.workers === 1 ? '' : 'es'} (c=${run.concurrency} each)`
        : `one process, sendMany (c=${run.concurrency})`;
    rows.push([
      '14',
      `lanes, ${who}: first to last send, ms (sandbox clock); share = allowed / actual (queue order / actual)`,
      run.actualMs,
      `busiest sender 1 s ${run.busiestSenderSecond} (lane ${run.perSenderLimit}), smallest recipient gap ${run.minRecipientGapMs} ms (${run.minInterval}), ${run.rejected429} x 429, ${run.accepted}/${run.messages} stored, ${run.duplicates} twice`,
      `${run.share} (${run.queueOrderShare})`,
      'reported',
    ]);
  }
  return rows;
}

/**
 * @typedef {{ workers: number, messages: number, limitPerSecond: number, sendsPerSecond: number,
 *   requestsPerSecond: number, ratio: number, requestRatio: number, busiestSlidingSecond: number,
 *   rejected429: number, pollsPerSettled: number | null }} FleetRun
 * @typedef {{ waiting: number, tracked: number, bytesPerWaitingSend: number,
 *   bytesPerTrackedMessage: number | null }} FleetMemory
 */

/**
 * Section 10 (reported, not a target): the fleet runs, or why they were skipped.
 * @param {{ skipped?: string, runs: FleetRun[], memory: FleetMemory, postgres?: FleetRun } | undefined} fleet
 */
function fleetRows(fleet) {
  // `postgres`: the largest run again with the queue in PostgreSQL (absent without its binaries).
  if (!fleet || fleet.skipped)
    return [['10', 'fleet (BullMQ workers)', 'skipped', fleet?.skipped ?? 'not run', '', 'info']];
  const rows = fleet.runs.map((run) => [
    '10',
    `fleet, ${run.workers} worker process(es): sends/s, req/s (${run.messages} tracked, sandbox clock)`,
    `${run.sendsPerSecond}, ${run.requestsPerSecond}`,
    `limit ${run.limitPerSecond}/s, busiest 1 s ${run.busiestSlidingSecond}, ${run.rejected429} x 429`,
    `${run.ratio}, ${run.requestRatio}`,
    'info',
  ]);
  const polls = fleet.runs.map((run) => run.pollsPerSettled).join(' / ');
  rows.push(['10', 'fleet: polls per settled message (1 / 2 / 4 workers)', polls, '', '', 'info']);
  const pg = fleet.postgres;
  if (pg) {
    rows.push([
      '10',
      `fleet on PostgreSQL, ${pg.workers} worker processes: sends/s, req/s (${pg.messages} tracked)`,
      `${pg.sendsPerSecond}, ${pg.requestsPerSecond}`,
      `limit ${pg.limitPerSecond}/s, busiest 1 s ${pg.busiestSlidingSecond}, ${pg.pollsPerSettled} polls per settled`,
      `${pg.ratio}, ${pg.requestRatio}`,
      'info',
    ]);
  } else
    rows.push([
      '10',
      'fleet on PostgreSQL',
      'skipped',
      'no PostgreSQL server binaries (apt-get install -y postgresql)',
      '',
      'info',
    ]);
  rows.push([
    '10',
    `fleet: Redis bytes per waiting send / tracked message (${fleet.memory.waiting} / ${fleet.memory.tracked})`,
    `${fleet.memory.bytesPerWaitingSend} / ${fleet.memory.bytesPerTrackedMessage}`,
    'INFO memory used_memory',
    '',
    'info',
  ]);
  return rows;
}

/**
 * Section 12 (reported, not a target): `waitForReplicas`'s cost, or why it was skipped.
 * @param {{ skipped?: string, sends: number, plain: { sendsPerSecond: number, p50Ms: number }, waited: { sendsPerSecond: number, p50Ms: number }, ratio: number } | undefined} replicas
 */
function replicaRows(replicas) {
  if (!replicas || replicas.skipped)
    return [['12', 'waitForReplicas', 'skipped', replicas?.skipped ?? 'not run', '', 'info']];
  const { plain, waited } = replicas;
  return [
    [
      '12',
      `queue.send with / without waitForReplicas (${replicas.sends} sequential, primary + 1 replica): sends/s`,
      `${waited.sendsPerSecond} / ${plain.sendsPerSecond}`,
      `p50 ${waited.p50Ms} / ${plain.p50Ms} ms`,
      `${replicas.ratio}`,
      'info',
    ],
  ];
}

/**
 * Section 11 (reported, not a target): the outbox's hand-off, or why it was skipped.
 * @param {{ skipped?: string, messages: number, concurrency: number, handedOff: number, handOffP50Ms: number, handOffP99Ms: number, messagesPerSecond: number } | undefined} outbox
 */
function outboxRows(outbox) {
  if (!outbox || outbox.skipped)
    return [['11', 'outbox (PostgreSQL)', 'skipped', outbox?.skipped ?? 'not run', '', 'info']];
  return [
    [
      '11',
      `outbox: commit to job p50 / p99 ms (${outbox.messages} transactions, ${outbox.concurrency} at a time)`,
      `${outbox.handOffP50Ms} / ${outbox.handOffP99Ms}`,
      `${outbox.handedOff} handed off`,
      '',
      'info',
    ],
    [
      '11',
      'outbox: messages handed off per second',
      String(outbox.messagesPerSecond),
      'first commit to last job',
      '',
      'info',
    ],
  ];
}

/** @param {string} path @param {any} results */
export async function writeResults(path, results) {
  await writeFile(path, `${JSON.stringify(results, null, 2)}\n`);
}

/**
 * Section 15 (reported, not a target; issue 39): each run's achieved rate against what the window
 * rule allows (share), and its busiest sliding second against the limit.
 * @param {{ runs: any[], rounds?: number, skipped?: string } | undefined} limit
 */
export function fleetLimitRows(limit) {
  if (!limit || limit.skipped)
    return [['15', 'fleet at its limit', 'skipped', limit?.skipped ?? 'not run', '', 'info']];
  return limit.runs.map((run) => [
    '15',
    `${run.limiter === 'bullmq' ? "BullMQ's limiter alone" : 'fleet'} R=${run.rate}/s, answers ${run.answerMs} ms, ${run.processes} process${run.processes === 1 ? '' : 'es'} (c=${run.concurrency} each)${run.kill ? ', one SIGKILLed' : ''}: sends/s (sandbox clock)`,
    run.achievedPerSecond,
    `allowed ${run.allowedPerSecond}/s; busiest 1 s ${run.busiestSecond} (R ${run.rate}); ${run.accepted}/${run.sends} stored (${run.ended} ended), ${run.duplicates} twice; ${run.commandsPerSend} Redis commands/send (${run.scriptsPerSend} scripts)`,
    run.share,
    'reported',
  ]);
}
