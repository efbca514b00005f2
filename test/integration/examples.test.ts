/**
 * Every runnable example, and the demo, run as a user runs them (`node examples/x.ts`, the
 * package imported by its name from the build) against the sandbox on loopback, configured
 * only through the two environment variables. The examples run side by side, each against a
 * sandbox of its own: what one stores is never what another counts.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MessagingClient } from 'tenant-messaging';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSandboxStory } from '../helpers/demo-story.js';
import { hasRedis, startRedis } from '../helpers/redis.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sandboxes: RunningSandbox[] = [];
afterAll(() => Promise.all(sandboxes.map((sandbox) => sandbox.close())));

/** A sandbox of the test's own, and a runner of examples against its acme tenant. */
async function ownSandbox() {
  const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 100, readAfterMs: 300 } });
  sandboxes.push(sandbox);
  const acme = sandbox.tenants.acme;
  if (!acme) throw new Error('the sandbox has no acme tenant');
  // The process's own timeout is the bound of a run: a hang fails the test, nothing nearer does.
  const runExample = (file: string, args: string[] = [], env: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, [`examples/${file}`, ...args], {
      cwd: root,
      timeout: 30_000,
      env: {
        ...process.env,
        TENANT_MESSAGING_BASE_URL: acme.baseUrl,
        TENANT_MESSAGING_API_KEY: acme.keys.full,
        ...env,
      },
    });
  return { sandbox, runExample };
}

// Side by side: each test runs its child processes against a sandbox of its own, so none waits on another.
describe.concurrent('examples, side by side', () => {
  describe('examples run against the sandbox', () => {
    it('send-text.ts', async () => {
      const { runExample } = await ownSandbox();
      const { stdout } = await runExample('send-text.ts');
      expect(stdout).toMatch(/^sent: message log \d+, status sent, delivery_status sent$/m);
    });

    it('send-media.ts streams a file and reports progress', async () => {
      const { sandbox, runExample } = await ownSandbox();
      const before = sandbox.uploads.length;
      const { stdout } = await runExample('send-media.ts');
      expect(stdout).toMatch(/uploaded (\d+) of \1 bytes/);
      expect(stdout).toMatch(/media at http:\/\/127\.0\.0\.1:\d+\/t\/acme\/media\//);
      expect(sandbox.uploads.slice(before).map((u) => [u.filename, u.contentType])).toEqual([
        ['receipt.png', 'image/png'],
      ]);
    });

    it('campaign.ts sends every order once, tracks them as they are sent, and prints a summary', async () => {
      const { sandbox, runExample } = await ownSandbox();
      const before = sandbox.messages('acme').length;
      const { stdout } = await runExample('campaign.ts', ['30']);
      expect(stdout).toMatch(
        /^campaign: 30 orders, 30 sent \(0 reconciled\), 0 failed, 0 unknown; \d+ read, \d+ delivered, \d+ not confirmed in time$/m,
      );
      const stored = sandbox
        .messages('acme')
        .slice(before)
        .map((log) => log.content);
      expect(stored).toHaveLength(30);
      expect(new Set(stored).size).toBe(30);
    });

    it('wait-for-delivery.ts', async () => {
      const { runExample } = await ownSandbox();
      const { stdout } = await runExample('wait-for-delivery.ts');
      // The updates come in order and end confirmed. The first may already be `delivered`: the
      // sandbox delivers 100 ms after the send, which a slow process start (CI's Node 22) outlasted.
      expect(stdout).toMatch(
        /^(log \d+: sent\n)?(log \d+: delivered\n)?(log \d+: read\n)?confirmed: (delivered|read)$/m,
      );
      expect(stdout).toMatch(/^log \d+: (sent|delivered|read)$/m);
    });

    it('list-all-logs.ts walks every page', async () => {
      const { sandbox, runExample } = await ownSandbox();
      // Pages to walk: 30 logs more than the sandbox starts with, sent by the test itself.
      const acme = sandbox.tenants.acme as { baseUrl: string; keys: { full: string } };
      const client = new MessagingClient({ baseUrl: acme.baseUrl, apiKey: acme.keys.full });
      const rows = Array.from({ length: 30 }, (_, i) => ({
        sender_phone: '+15550001001',
        to_phone: '+15557654321',
        type: 'text' as const,
        content: `Order ${i}`,
      }));
      for await (const result of client.messages.sendMany(rows)) expect(result.status).toBe('sent');
      await client.close();
      const { stdout } = await runExample('list-all-logs.ts');
      const total = sandbox.messages('acme').length;
      expect(stdout).toContain(`${total} logs:`);
      expect(stdout).toMatch(new RegExp(`page 1 has \\d+ logs; total ${total}`));
    });

    it('lookup-before-send.ts skips an unreachable recipient', async () => {
      const { runExample } = await ownSandbox();
      const { stdout } = await runExample('lookup-before-send.ts');
      expect(stdout).toMatch(/\+15557654321: reachable, sent as log \d+/);
      expect(stdout).toMatch(/\+15557650000: not reachable \(.+\), not sending/);
    });

    it('handle-errors.ts names each failure', async () => {
      const { runExample } = await ownSandbox();
      const { stdout } = await runExample('handle-errors.ts');
      expect(stdout).toMatch(/^bad input: ValidationError: fix the input/m);
      expect(stdout).toMatch(
        /^rejected by the service: UnprocessableEntityError: the service rejected fields: \{"to_phone"/m,
      );
      expect(stdout).toMatch(/^unknown log: NotFoundError: no such log/m);
      expect(stdout).toMatch(/^wrong key: AuthenticationError: check the API key/m);
      expect(stdout).toMatch(/^unreachable host: APIConnectionError: network trouble/m);
    });
  });

  describe("npm run demo (the bin's `demo` command, run by examples/demo.ts)", () => {
    it('runs the whole story against the in-process sandbox and exits 0', async () => {
      const { runExample } = await ownSandbox();
      const { stdout } = await runExample('demo.ts', [], {
        TENANT_MESSAGING_BASE_URL: '',
        TENANT_MESSAGING_API_KEY: '',
      });
      expectSandboxStory(stdout);
    });

    // `npm run demo` rebuilds first: the whole package (a bare `tsup` wiped the declarations and
    // dist/openapi.json), and quietly, so its story is the first thing printed after npm's header.
    it('builds the whole package, quietly, before the story', async () => {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      };
      expect(manifest.scripts['demo']).toBe('npm run build --silent && node examples/demo.ts');
      const { default: configs } = await import('../../tsup.config.js');
      const { binBuild } = await import('tenant-messaging-bin-kit/tsup');
      for (const config of [...[configs].flat(), binBuild()]) expect(config).toMatchObject({ silent: true });
    });

    // A real tenant without --to is refused (packages/cli/test/integration/demo.test.ts): a sandbox's test key on
    // loopback can send nothing real, so the demo needs no --to there.
    it('against a configured sandbox tenant, runs without --to, and with --to sends only to it', async () => {
      const { sandbox, runExample } = await ownSandbox();
      const { stdout: whole } = await runExample('demo.ts');
      expect(whole).toContain(`against ${sandbox.tenants.acme?.baseUrl}/api/v1`);
      const { stdout } = await runExample('demo.ts', ['--to', '+15557654321']);
      expect(stdout).toContain(`against ${sandbox.tenants.acme?.baseUrl}/api/v1`);
      expect(stdout).toContain('NotFoundError');
    });
  });

  describe.runIf(hasRedis)('examples/fleet (skipped without redis-server)', () => {
    it('two workers send and track what the producer enqueued, then stop gracefully on SIGTERM', async () => {
      const redis = await startRedis();
      const { sandbox } = await ownSandbox();
      const acme = sandbox.tenants.acme;
      if (!acme) throw new Error('the sandbox has no acme tenant');
      const env = {
        ...process.env,
        TENANT_MESSAGING_BASE_URL: acme.baseUrl,
        TENANT_MESSAGING_API_KEY: acme.keys.full,
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        QUEUE: `example-${process.pid}`,
        TRACK_TIMEOUT_MS: '3000',
      };
      const workers: { child: ChildProcess; output: string[] }[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          const child = spawn(process.execPath, ['examples/fleet/worker.ts'], { cwd: root, env });
          const output: string[] = [];
          workers.push({ child, output });
          child.stderr?.on('data', (data: Buffer) => output.push(data.toString()));
          await new Promise<void>((resolve, reject) => {
            child.stdout?.on('data', (data: Buffer) => {
              output.push(data.toString());
              if (output.join('').includes('ready on queue')) resolve();
            });
            child.once('exit', (code) => reject(new Error(`worker.ts exited (${code}): ${output.join('')}`)));
          });
        }
        const { stdout } = await promisify(execFile)(process.execPath, ['examples/fleet/producer.ts', '12'], {
          cwd: root,
          timeout: 30_000,
          env: { ...env, WAIT_MS: '25000' },
        });
        // Recipients ending in 8 are never delivered (sandbox schedule): +15557654008 is one of the 12.
        expect(stdout).toMatch(
          /^fleet: 12 enqueued, 12 sent, 0 failed, 0 unknown; 11 delivered or read, 1 not confirmed in time, 0 still open$/m,
        );
        for (const { child, output } of workers) {
          const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          expect(await exited).toBe(0);
          expect(output.join('')).toMatch(/worker \d+ stopped/);
        }
      } finally {
        for (const { child } of workers)
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await redis.stop();
      }
    }, 40_000);
  });
});
