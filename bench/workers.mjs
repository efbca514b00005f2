/**
 * The fleet's worker processes for the bench (sections 10 and 14): test/integration/bullmq/crash-worker.mjs,
 * the same worker the fleet tests start, ready when each says so, stopped with SIGTERM.
 */
import { fork } from 'node:child_process';

const WORKER = new URL('../test/integration/bullmq/crash-worker.mjs', import.meta.url);

/**
 * `count` worker processes with `env`, ready when each says so; if one fails to start, the ones
 * started are stopped and the error thrown. `script`: another worker (it must say so too);
 * `execArgv`: Node's flags for each (section 15's `--import` of bench/round-trips.mjs).
 * @param {number} count @param {Record<string, string>} env @param {URL} [script] @param {string[]} [execArgv]
 */
export async function startWorkers(count, env, script = WORKER, execArgv = process.execArgv) {
  /** @type {import('node:child_process').ChildProcess[]} */
  const started = [];
  try {
    await Promise.all(
      Array.from({ length: count }, async () => {
        const child = fork(script, {
          env: { ...process.env, ...env },
          execArgv,
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        started.push(child);
        await new Promise((resolve, reject) => {
          child.once('message', resolve);
          child.once('exit', (code) => reject(new Error(`a worker exited (${code}) before it was ready`)));
        });
      }),
    );
  } catch (error) {
    await stopWorkers(started);
    throw error;
  }
  return started;
}

/**
 * Stops each worker with SIGTERM (its sends in flight end), and SIGKILL 5 s later if it has not.
 * @param {import('node:child_process').ChildProcess[]} workers
 */
export async function stopWorkers(workers) {
  await Promise.all(
    workers.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(killer);
    }),
  );
}
