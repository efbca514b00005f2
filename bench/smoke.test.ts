/**
 * The bench cannot rot: `node bench/run.mjs --smoke` (the least that runs every section) runs
 * against the build, as `npm run bench` does, and must print its table and write every section
 * with numeric figures. Targets are not asserted: these figures are noise (timing belongs to
 * `npm run bench`, not to tests).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedPackages } from '../test/helpers/pack.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const numeric = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

describe('npm run bench --smoke', () => {
  it('prints the table and writes every section of results.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tm-bench-smoke-'));
    dirs.push(dir);
    const out = join(dir, 'results.json');
    // execFile rejects on a non-zero exit code, so resolving is the exit-code assertion.
    // The cold start installs the tarball the rest of the run installs (no second `npm pack`).
    const { sdk } = await sharedPackages();
    const { stdout } = await promisify(execFile)(process.execPath, ['bench/run.mjs', '--smoke', '--out', out], {
      cwd: root,
      // A hang detector, not a measure: on a busy machine the smoke run takes several times longer.
      timeout: 150_000,
      env: { ...process.env, TM_BENCH_SDK_TARBALL: sdk },
    });
    expect(stdout).toMatch(/^\| # +\| measure/m);
    expect(stdout).toMatch(/messages\.get req\/s/);
    expect(stdout).toMatch(/cold import \+ construct/);

    const results = JSON.parse(await readFile(out, 'utf8'));
    expect(results.mode).toBe('smoke');
    expect(results.node).toBe(process.version);
    for (const section of ['get', 'send']) {
      for (const key of ['rawPerSecond', 'sdkPerSecond', 'ratio', 'sdkConnections', 'rawConnections']) {
        expect(results[section][key], `${section}.${key}`).toSatisfy(numeric);
      }
    }
    for (const key of ['sdkMs', 'rawMs', 'timeRatio', 'sdkPeakRssAboveBaselineMB', 'rawPeakRssAboveBaselineMB']) {
      expect(results.upload[key], `upload.${key}`).toSatisfy(numeric);
    }
    for (const key of ['nodeBaselineMs', 'importConstructMs', 'sdkFirstGetMs', 'rawFirstGetMs', 'firstGetRatio']) {
      expect(results.coldStart[key], `coldStart.${key}`).toSatisfy(numeric);
    }
    for (const key of ['files', 'bytes', 'gzipBytes']) {
      expect(results.coldStart.mainEntry[key], `coldStart.mainEntry.${key}`).toSatisfy(numeric);
    }
    expect(stdout).toMatch(/main entry as imported: \d+ files/);
    for (const bundler of ['esbuild', 'wrangler']) {
      for (const key of ['bytes', 'gzipBytes']) {
        expect(results.coldStart.worker[bundler][key], `coldStart.worker.${bundler}.${key}`).toSatisfy(numeric);
      }
    }
    expect(stdout).toMatch(/a minimal Worker, minified/);
    for (const key of ['maxRequestsIn1s', 'heapPerPendingWaitBytes', 'totalMs', 'serverRequests']) {
      expect(results.polling[key], `polling.${key}`).toSatisfy(numeric);
    }
    expect(results.polling.resolvedDelivered).toBe(results.polling.waits);
    // Sections 7-9, many messages: correctness figures are exact even in a smoke run.
    for (const key of ['achievedPerSecond', 'ratio', 'accepted', 'rejected429', 'duplicates', 'failed']) {
      expect(results.many.rate[key], `many.rate.${key}`).toSatisfy(numeric);
    }
    expect(results.many.rate.accepted).toBe(results.many.rate.messages);
    expect(results.many.rate.duplicates).toBe(0);
    expect(results.many.heap.heapPerInFlightItemBytes, 'many.heap.heapPerInFlightItemBytes').toSatisfy(numeric);
    expect(results.many.heap.sent).toBe(results.many.heap.inFlight);
    for (const key of ['polls', 'updates', 'pollsPerUpdate']) {
      expect(results.many.track[key], `many.track.${key}`).toSatisfy(numeric);
    }
    expect(results.many.track.settled).toBe(results.many.track.ids);
    expect(stdout).toMatch(/sendMany rate \/ limit/);
    expect(stdout).toMatch(/trackDeliveries polls per update/);
    // Section 13, send-many's peak RSS against file size: every run sent exactly its rows.
    const memory = results.sendManyMemory;
    expect(memory.runs.length).toBeGreaterThanOrEqual(2);
    for (const run of memory.runs) {
      expect(run.sent, `${run.rows} rows`).toBe(Math.ceil(run.rows / run.sentEvery));
      expect(run.sent + run.refused).toBe(run.rows);
      for (const key of ['peakRssMB', 'seconds', 'fileMB'])
        expect(run[key], `${run.rows} rows: ${key}`).toSatisfy(numeric);
    }
    expect(memory.peakRssMBLargest).toSatisfy(numeric);
    expect(memory.growthMBSmallestToLargest).toSatisfy(numeric);
    expect(stdout).toMatch(/send-many peak RSS, MB: 5,000 rows/);
    // Section 14, lanes: the one-process run always (the fleet runs need redis-server); each send
    // stored once, and no lane broken where the sandbox counts them (it enforces the same lanes).
    const lanes = results.lanes;
    expect(lanes.workload.allowedMs).toSatisfy(numeric);
    expect(lanes.workload.queueOrderMs).toSatisfy(numeric);
    expect(lanes.runs.map((run: { run: string }) => run.run)).toContain('sendMany');
    for (const run of lanes.runs) {
      const name = `lanes ${run.run} x${run.workers}`;
      expect(run.accepted, name).toBe(run.messages);
      expect(run.duplicates, name).toBe(0);
      expect(run.rejected429, name).toBe(0);
      expect(run.busiestSenderSecond, name).toBeLessThanOrEqual(run.perSenderLimit);
      expect(run.minRecipientGapMs, name).toBeGreaterThanOrEqual(run.minInterval);
      for (const key of ['actualMs', 'share', 'queueOrderShare'])
        expect(run[key], `${name}: ${key}`).toSatisfy(numeric);
    }
    expect(stdout).toMatch(/lanes, one process, sendMany/);
    // Section 15, the fleet at its limit (with redis-server; its PostgreSQL run with PostgreSQL's
    // binaries): each send stored once, no second above R, and what a send cost its datastore,
    // counted on the server and on the clients. On PostgreSQL no Redis at all.
    const limit = results.fleetLimit;
    if (!limit.skipped) {
      if (!limit.postgresSkipped)
        expect(limit.runs.map((run: { backend: string }) => run.backend)).toContain('postgres');
      for (const run of limit.runs) {
        const name = `fleet limit on ${run.backend}, R=${run.rate}`;
        expect(run.accepted, name).toBe(run.sends);
        expect(run.duplicates, name).toBe(0);
        expect(run.busiestSecond, name).toBeLessThanOrEqual(run.rate);
        const counted =
          run.backend === 'postgres'
            ? [
                'sqlRoundTripsPerSend',
                'sqlStatementsPerSend',
                'sqlNestedStatementsPerSend',
                'producerRoundTripsPerSend',
              ]
            : ['commandsPerSend', 'scriptsPerSend', 'redisRoundTripsPerSend', 'producerRoundTripsPerSend'];
        for (const key of counted) expect(run[key], `${name}: ${key}`).toBeGreaterThan(0);
        if (run.backend === 'postgres') expect(run.redisRoundTripsPerSend, name).toBe(0);
      }
      expect(stdout).toMatch(/fleet R=\d+\/s, answers/);
    }
    expect(results.connections.sdkConnections).toSatisfy(numeric);
    expect(results.checks).toHaveLength(results.targets.length);
  }, 200_000);
});
