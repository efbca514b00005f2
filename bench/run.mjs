/**
 * `npm run bench`: measures the built package (../dist, as users get it) against hand-written
 * undici in one run, prints a table and writes bench/results.json.
 *
 *   node bench/run.mjs            the full run (about 6 minutes: the fleet section about 75 s of it, the lanes section 45 s)
 *   node bench/run.mjs --quick    small counts (about 45 s); its figures are too noisy for targets
 *   node bench/run.mjs --smoke    the least that runs every section (the suite's bench test)
 *   node bench/run.mjs --out FILE write the results elsewhere than bench/results.json
 *   node bench/send-many-memory.mjs [--quick|--smoke]   section 13 alone, its rows printed
 *   node bench/lanes.mjs [--quick|--smoke] [--offsets]    section 14 alone, its rows printed
 *   node bench/fleet-limit.mjs [--quick|--smoke]         section 15 alone, its rows printed
 */
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchColdStart } from './cold-start.mjs';
import { FULL, QUICK, SMOKE, TARGETS } from './config.mjs';
import { benchFleet } from './fleet.mjs';
import { benchFleetLimit } from './fleet-limit.mjs';
import { benchLanes } from './lanes.mjs';
import { benchSendManyHeap, benchSendManyRate, benchTrackDeliveries } from './many.mjs';
import { benchOutbox } from './outbox.mjs';
import { benchPolling } from './polling.mjs';
import { benchReplicas } from './replicas.mjs';
import { checkTargets, formatTable, writeResults } from './report.mjs';
import { benchSendManyMemory } from './send-many-memory.mjs';
import { round } from './stats.mjs';
import { benchThroughput } from './throughput.mjs';
import { benchUpload } from './upload.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const mode = values.smoke ? 'smoke' : values.quick ? 'quick' : 'full';
const config = { full: FULL, quick: QUICK, smoke: SMOKE }[mode];
const out = values.out ?? fileURLToPath(new URL('./results.json', import.meta.url));
const log = (/** @type {string} */ message) => process.stderr.write(`bench: ${message}\n`);
const started = performance.now();

log(`mode ${mode}; throughput (sections 1, 2, 6)`);
const throughput = await benchThroughput(config.throughput);
log('upload (section 3)');
const upload = await benchUpload(config.upload);
log('cold start (section 4)');
const coldStart = await benchColdStart(config.coldStart);
log('polling (section 5)');
const polling = await benchPolling(config.polling);
log('many messages (sections 7, 8, 9)');
const many = {
  rate: await benchSendManyRate(config.many.rate),
  heap: await benchSendManyHeap(config.many.heap),
  track: await benchTrackDeliveries(config.many.track),
};
log('fleet (section 10: BullMQ workers, reported only)');
const fleet = await benchFleet(config.fleet);
log('outbox (section 11: MessagingOutbox on PostgreSQL, reported only)');
const outbox = await benchOutbox(config.outbox);
log('waitForReplicas (section 12: a primary with one replica, reported only)');
const replicas = await benchReplicas(config.replicas);
log("send-many memory (section 13: the bin's peak RSS against file size)");
const sendManyMemory = await benchSendManyMemory(config.sendManyMemory);
log('lanes (section 14: a mixed workload against what the lanes allow, reported only)');
const lanes = await benchLanes(config.lanes);
log('fleet at its limit (section 15: R x answer time x processes against the window rule, reported only)');
const fleetLimit = await benchFleetLimit(config.fleetLimit);

const results = {
  date: new Date().toISOString(),
  mode,
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  config,
  get: throughput.get,
  send: throughput.send,
  getTraced: throughput.getTraced,
  upload,
  coldStart,
  polling: { ...polling, capUsage: round(polling.maxRequestsIn1s / polling.maxPerSecondCap, 3) },
  many,
  fleet,
  outbox,
  replicas,
  sendManyMemory,
  lanes,
  fleetLimit,
  connections: {
    sdkConnections: throughput.get.sdkConnections + throughput.send.sdkConnections,
    rawConnections: throughput.get.rawConnections + throughput.send.rawConnections,
    // src/core/transport/undici-transport.ts gives the client's own Agent `connections: MAX_CONNECTIONS` (16).
    limit: 16,
    limitSource: "the SDK Agent's connections limit",
  },
  targets: TARGETS,
  /** @type {ReturnType<typeof checkTargets>} */
  checks: [],
  totalSeconds: 0,
};
results.checks = checkTargets(results);
results.totalSeconds = round((performance.now() - started) / 1000, 1);
await writeResults(out, results);

process.stdout.write(
  `\ntenant-messaging bench (${results.mode}) - ${results.node}, ${results.cpu} x${results.cores}, ${results.date}\n\n`,
);
process.stdout.write(`${formatTable(results, results.checks)}\n\n`);
const missed = results.checks.filter((c) => !c.pass);
process.stdout.write(
  `${missed.length === 0 ? 'all targets met' : `targets missed: ${missed.map((c) => c.name).join('; ')}`}` +
    `${mode === 'full' ? '' : ` (${mode} run: figures are not meaningful against targets)`}\n` +
    `results: ${out} (${results.totalSeconds} s)\n`,
);
