/**
 * A container's SIGTERM: the README's fleet snippet (examples/fleet/one-process.ts, which the
 * README holds verbatim), run as a user runs it, exits by itself within seconds of SIGTERM, with
 * the send in flight finished and stored once, and its `updates()` loop ended. Before, the worker
 * closed but the queue and the loop kept the process alive until SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessagingQueue } from 'tenant-messaging/bullmq';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, startRedis, type TestRedis } from '../../../helpers/redis.js';
import { until } from '../fixture.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const snippet = 'examples/fleet/one-process.ts';
const available = redisAvailable();
let sandbox: RunningSandbox<'acme' | 'globex'>;
let redis: TestRedis;

beforeAll(async () => {
  if (!available) return;
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 60_000, readAfterMs: 120_000 } });
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
  await sandbox?.close();
});

describe.runIf(available)("the README's fleet snippet under a container's SIGTERM", () => {
  it('is the README block, verbatim', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${readFileSync(`${root}${snippet}`, 'utf8')}\`\`\``);
  });

  it('exits by itself within seconds: the send in flight finishes and is stored once, the updates loop ends', async () => {
    // The send is held 1.5 s at the service, so SIGTERM comes while it is in flight.
    sandbox.faults.add({ kind: 'latency', latencyMs: 1_500, route: 'POST /messages' });
    const { baseUrl, keys } = sandbox.tenants.acme;
    const child: ChildProcess = spawn(process.execPath, [snippet], {
      cwd: root,
      env: {
        ...process.env,
        TENANT_MESSAGING_BASE_URL: baseUrl,
        TENANT_MESSAGING_API_KEY: keys.full,
        REDIS_PORT: String(redis.port),
      },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(
        () => {
          if (child.exitCode !== null) throw new Error(`the snippet exited before its send arrived:\n${output}`);
          return (sandbox.counters.requests['POST /messages'] ?? 0) > 0;
        },
        25_000,
        () => `no send arrived:\n${output}`,
      );
      expect(sandbox.messages('acme')).toHaveLength(0); // still held at the service
      child.kill('SIGTERM');
      // The bound is the behaviour: `docker stop` sends SIGKILL 10 s after SIGTERM (its default
      // grace), so a process that has not exited by then was killed, its send cut off.
      const code = await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(() => resolve('still running 10 s after SIGTERM'), 10_000)),
      ]);
      expect(code, output).toBe(0);
      expect(sandbox.messages('acme').map((log) => log.content)).toEqual(['Your order shipped']);
      // The send was recorded as sent: the queue holds it completed, not waiting for another worker.
      const queue = new MessagingQueue({ connection: redis.connection, name: 'sms' });
      try {
        expect(await queue.counts()).toMatchObject({ waiting: 0, active: 0 });
        expect((await queue.counts()).sent + (await queue.counts()).tracking).toBe(1);
      } finally {
        await queue.close();
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 40_000);
});
