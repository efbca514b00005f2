/** The table rows of the bench's sections 10 to 15 (the fleet, its outbox and replicas, send-many's memory, the lanes, the fleet at its limit): report.mjs puts them in its table. */

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
export function fleetRows(fleet) {
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
export function replicaRows(replicas) {
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
export function outboxRows(outbox) {
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

/**
 * A run's cost per send, as its row says it: on Redis its commands (server) and round trips
 * (clients); on PostgreSQL its round trips (clients) and statements (server), and Redis's (none).
 * @param {any} run
 */
function costText(run) {
  const enqueue = `${run.producerRoundTripsPerSend} of them enqueueing`;
  if (run.backend === 'postgres')
    return `PostgreSQL/send: ${run.sqlRoundTripsPerSend} round trips (${enqueue}), ${run.sqlStatementsPerSend} statements + ${run.sqlNestedStatementsPerSend} inside functions; Redis: ${run.redisRoundTripsPerSend} round trips`;
  return `Redis/send: ${run.commandsPerSend} commands (${run.scriptsPerSend} scripts), ${run.redisRoundTripsPerSend} round trips (${enqueue})`;
}

/**
 * Section 15 (reported, not a target; issue 39): each run's achieved rate against what the window
 * rule allows (share), its busiest sliding second against the limit, and what a send cost its
 * datastore.
 * @param {{ runs: any[], rounds?: number, skipped?: string, postgresSkipped?: string } | undefined} limit
 */
export function fleetLimitRows(limit) {
  if (!limit) return [['15', 'fleet at its limit', 'skipped', 'not run', '', 'info']];
  const rows = limit.runs.map((run) => [
    '15',
    `${run.limiter === 'bullmq' ? "BullMQ's limiter alone" : 'fleet'}${run.backend === 'postgres' ? ' on PostgreSQL' : ''} R=${run.rate}/s, answers ${run.answerMs} ms, ${run.processes} process${run.processes === 1 ? '' : 'es'} (c=${run.concurrency} each)${run.kill ? ', one SIGKILLed' : ''}: sends/s (sandbox clock)`,
    run.achievedPerSecond,
    `allowed ${run.allowedPerSecond}/s; busiest 1 s ${run.busiestSecond} (R ${run.rate}); ${run.accepted}/${run.sends} stored (${run.ended} ended), ${run.duplicates} twice; ${costText(run)}`,
    run.share,
    'reported',
  ]);
  if (limit.skipped) rows.unshift(['15', 'fleet at its limit, on Redis', 'skipped', limit.skipped, '', 'info']);
  if (limit.postgresSkipped)
    rows.push(['15', 'fleet at its limit, on PostgreSQL', 'skipped', limit.postgresSkipped, '', 'info']);
  return rows;
}
