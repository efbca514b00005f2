/** Section table, target checks and results.json. */
import { writeFile } from 'node:fs/promises';
import { TARGETS } from './config.mjs';
import {
  fleetLimitRows,
  fleetRows,
  lanesRows,
  outboxRows,
  replicaRows,
  sendManyMemoryRows,
} from './report-sections.mjs';
import { round } from './stats.mjs';

export { fleetLimitRows, lanesRows, sendManyMemoryRows };

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
      '4d',
      `a minimal Worker, minified: esbuild as wrangler runs it, KB (gzip ${round(r.coldStart.worker.esbuild.gzipBytes / 1024, 1)} KB)`,
      round(r.coldStart.worker.esbuild.bytes / 1024, 1),
      '',
      '',
      'info',
    ],
    [
      '4e',
      `the same Worker by wrangler deploy --dry-run --minify, KB (gzip ${round(r.coldStart.worker.wrangler.gzipBytes / 1024, 1)} KB)`,
      round(r.coldStart.worker.wrangler.bytes / 1024, 1),
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

/** @param {string} path @param {any} results */
export async function writeResults(path, results) {
  await writeFile(path, `${JSON.stringify(results, null, 2)}\n`);
}
