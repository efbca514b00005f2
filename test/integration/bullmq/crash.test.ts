/**
 * A worker process killed with SIGKILL in the middle of a send (its POST has reached the service,
 * no answer has come back), then a new worker process: the job is re-run after the stalled check,
 * finds its in-flight mark, reconciles, and ends `sent`, the message stored once.
 * Runs the built package in the children: `npm run build` first (the test builds when dist is missing).
 */
import { type ChildProcess, execSync, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { MessagingQueue } from 'tenant-messaging/bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../helpers/redis.js';
import { collectUpdates, type Fixture, runs, startFixture, text, until } from './fixture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = fileURLToPath(new URL('./crash-worker.mjs', import.meta.url));
let f: Fixture;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!runs) return;
  if (!existsSync(`${root}dist/bullmq/index.js`)) execSync('npm run build', { cwd: root, stdio: 'ignore' });
  f = await startFixture();
}, 60_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await f?.close();
});

async function startWorker(name: string): Promise<ChildProcess> {
  const { baseUrl, keys } = f.sandbox.tenants['acme'] as (typeof f.sandbox.tenants)[string];
  const child = fork(script, {
    env: { ...process.env, REDIS_PORT: String(f.redis.port), QUEUE: name, BASE_URL: baseUrl, API_KEY: keys.full },
    execPath: process.execPath,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the worker process exited (${code}) before it was ready`)));
  });
  return child;
}

describe.runIf(runs)('a worker killed mid-send', () => {
  it('the restarted fleet reconciles the job: sent, stored once, never sent twice', async () => {
    const name = uniqueName();
    const queue = new MessagingQueue({ connection: f.redis.connection, name });
    const raw = new Queue(name, { connection: f.redis.connection });
    const updates = queue.updates();
    try {
      // The service holds the POST for 1.5 s, then stores it: the worker dies while it waits.
      f.sandbox.faults.add({ kind: 'latency', latencyMs: 1_500, route: 'sendMessage', times: 1 });
      const requests = () => f.sandbox.counters.requests['POST /messages'] ?? 0;
      const before = requests();
      await queue.send(text(1), { id: 'killed-mid-send' });
      const first = await startWorker(name);
      await until(
        async () => (await raw.getJob('killed-mid-send'))?.data.phase === 'in-flight' && requests() > before,
        20_000,
        () => 'the send in flight, its POST at the service',
      );
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      await until(
        () => f.sandbox.messages('acme').some((log) => log.content === 'Queued message 1'),
        20_000,
        () => 'the held send stored by the service',
      );

      const second = await startWorker(name);
      const [update] = await collectUpdates(updates, (s) => s.length >= 1, 20_000);
      expect(update).toMatchObject({ id: 'killed-mid-send', status: 'sent', log: { content: 'Queued message 1' } });
      const job = await raw.getJob('killed-mid-send');
      expect(job?.stalledCounter).toBeGreaterThan(0);
      expect(f.sandbox.messages('acme').filter((log) => log.content === 'Queued message 1')).toHaveLength(1);
      // One POST in all: the re-run read the logs instead of sending again.
      expect(requests() - before).toBe(1);
      second.kill('SIGTERM');
      await new Promise((resolve) => second.once('exit', resolve));
    } finally {
      await raw.close();
      await queue.close();
    }
  }, 30_000);
});
