/**
 * Section 4: cold start as a user meets it, in fresh processes, each measured from spawn to exit
 * and taken as the median of N, minus the median of a bare `node -e 0`: the package imported by
 * its name from the packed tarball, installed (cold-project.mjs), against the same first request
 * with `undici.request` imported by name from the same project. The runs interleave (baseline, a,
 * b-sdk, b-raw, baseline, ...) so a noisy moment of the machine hits all of them alike.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { installedProject } from './cold-project.mjs';
import { mainEntrySize } from './entry-size.mjs';
import { forkChild } from './ipc.mjs';
import { median, round } from './stats.mjs';
import { workerBundleSizes } from './worker-size.mjs';

/**
 * Spawns `node ...args` and resolves with its wall time in ms; rejects on a non-zero exit.
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
function timeProcess(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(killer);
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr}`));
    });
  });
}

/** @param {{ runs: number }} config */
export async function benchColdStart(config) {
  const project = installedProject();
  const script = (/** @type {string} */ name) => join(project.dir, name);
  /** @type {Record<string, string[]>} */
  const commands = {
    baseline: ['-e', '0'],
    construct: [script('sdk-construct.mjs')],
    sdkGet: [script('sdk-get.mjs')],
    rawGet: [script('raw-get.mjs')],
  };
  /** @type {Record<string, number[]>} */
  const times = { baseline: [], construct: [], sdkGet: [], rawGet: [] };
  try {
    const server = await forkChild(new URL('./server-child.mjs', import.meta.url));
    const env = { BENCH_URL: server.ready.url };
    try {
      // One untimed pass: the files are then in the page cache for every timed run.
      for (const args of Object.values(commands)) await timeProcess(args, env);
      for (let i = 0; i < config.runs; i++) {
        for (const [name, args] of Object.entries(commands))
          times[name]?.push(/** @type {number} */ (await timeProcess(args, env)));
      }
    } finally {
      await server.close();
    }
  } finally {
    project.remove();
  }
  const base = median(times.baseline ?? []);
  const net = (/** @type {string} */ name) => median(times[name] ?? []) - base;
  return {
    runs: config.runs,
    nodeBaselineMs: round(base, 1),
    importConstructMs: round(net('construct'), 1),
    sdkFirstGetMs: round(net('sdkGet'), 1),
    rawFirstGetMs: round(net('rawGet'), 1),
    firstGetRatio: round(net('sdkGet') / net('rawGet'), 3),
    mainEntry: mainEntrySize(),
    worker: await workerBundleSizes(),
  };
}
