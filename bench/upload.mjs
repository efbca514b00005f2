/**
 * Section 3: a big media send from a file path, SDK (`mediaFromPath`) against a raw streaming
 * upload (formdata-node + form-data-encoder + undici.request), each in a fresh process, alternating,
 * to a loopback server (its own process) that drains the body.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { forkChild } from './ipc.mjs';
import { median, round } from './stats.mjs';

const MB = 1024 * 1024;

/** Writes `megabytes` MB of random bytes (one random MB repeated) to `path`. @param {string} path @param {number} megabytes */
async function writeFile(path, megabytes) {
  const chunk = randomBytes(MB);
  const out = createWriteStream(path);
  for (let i = 0; i < megabytes; i++) {
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  }
  await new Promise((resolve, reject) =>
    out.end((/** @type {Error | undefined} */ error) => (error ? reject(error) : resolve(undefined))),
  );
}

/**
 * @param {string} mode
 * @param {string} url
 * @param {string} bigFile
 * @param {string} warmFile
 */
async function uploadOnce(mode, url, bigFile, warmFile, v8Flags = []) {
  const child = fileURLToPath(new URL('./upload-child.mjs', import.meta.url));
  const args = ['--expose-gc', ...v8Flags, child, mode, url, bigFile, warmFile];
  const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

/** @param {{ megabytes: number, rounds: number }} config */
export async function benchUpload(config) {
  const dir = await fsp.mkdtemp(join(tmpdir(), 'tm-bench-'));
  const bigFile = join(dir, 'media.bin');
  const warmFile = join(dir, 'warm.bin');
  const server = await forkChild(new URL('./server-child.mjs', import.meta.url));
  try {
    await writeFile(bigFile, config.megabytes);
    await fsp.writeFile(warmFile, randomBytes(64 * 1024));
    /** @type {Record<'raw' | 'sdk', { ms: number[], above: number[] }>} */
    const runs = { raw: { ms: [], above: [] }, sdk: { ms: [], above: [] } };
    for (let i = 0; i < config.rounds; i++) {
      for (const mode of /** @type {const} */ (['raw', 'sdk'])) {
        const before = await server.call('stats');
        const result = await uploadOnce(mode, server.ready.url, bigFile, warmFile);
        const after = await server.call('stats');
        if (after.bodyBytes - before.bodyBytes < config.megabytes * MB) {
          throw new Error(`${mode} upload: the server received ${after.bodyBytes - before.bodyBytes} bytes`);
        }
        runs[mode].ms.push(result.ms);
        runs[mode].above.push(result.peakAboveBaseline / MB);
      }
    }
    // Why a second measure: fresh read buffers are freed by V8's young-generation collections, so
    // a peak that depends on them follows the young generation's size more than the code. A fresh
    // process starts it small and doubles it once about 4 MB has survived, which a few KB more at
    // startup can tip; a long-running server has it grown. Both children here get the same grown
    // size, so the SDK (which reuses its read buffers) and raw undici (fresh ones per read) are
    // compared in the same garbage-collector state.
    const grownYoung = ['--min-semi-space-size=16', '--max-semi-space-size=16'];
    /** @type {Record<'raw' | 'sdk', number>} */
    const grown = { raw: 0, sdk: 0 };
    for (const mode of /** @type {const} */ (['raw', 'sdk'])) {
      const result = await uploadOnce(mode, server.ready.url, bigFile, warmFile, grownYoung);
      grown[mode] = result.peakAboveBaseline / MB;
    }
    const rawMs = median(runs.raw.ms);
    const sdkMs = median(runs.sdk.ms);
    return {
      megabytes: config.megabytes,
      rounds: config.rounds,
      rawMs: round(rawMs, 0),
      sdkMs: round(sdkMs, 0),
      timeRatio: round(sdkMs / rawMs, 3),
      sdkPeakRssAboveBaselineMB: round(Math.max(...runs.sdk.above), 1),
      sdkPeakRssAboveBaselineMedianMB: round(median(runs.sdk.above), 1),
      rawPeakRssAboveBaselineMB: round(Math.max(...runs.raw.above), 1),
      rawPeakRssAboveBaselineMedianMB: round(median(runs.raw.above), 1),
      grownYoungGenerationPeakMB: { sdk: round(grown.sdk, 1), raw: round(grown.raw, 1) },
      sdkRoundsMs: runs.sdk.ms.map((v) => round(v, 0)),
      rawRoundsMs: runs.raw.ms.map((v) => round(v, 0)),
    };
  } finally {
    await server.close();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
