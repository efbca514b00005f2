/**
 * `tenant-messaging tail`, the built bin as a subprocess against the sandbox: the newest logs;
 * with `--follow`, each new log once and each status change in order, as they happen, until
 * Ctrl-C, which stops it cleanly with a summary. Runs the build (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MessagingClient } from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../dist/main.js');
let sandbox: RunningSandbox;
let client: MessagingClient;
let env: Record<string, string>;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  sandbox = await startSandbox({ delivery: { deliveredAfterMs: 300, readAfterMs: 700 } });
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  env = { TENANT_MESSAGING_BASE_URL: tenant.baseUrl, TENANT_MESSAGING_API_KEY: tenant.keys.full };
  client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

const send = (content: string) =>
  client.messages.send({ sender_phone: '+15550001001', to_phone: SANDBOX_PHONES.reads, type: 'text', content });

interface Event {
  event: 'new' | 'status';
  from?: string;
  log: { id: number; delivery_status: string };
}

describe('tail', () => {
  it('without --follow: the logs of the newest page, and exit 0', async () => {
    const sent = await send('Before tail');
    const child = spawn(process.execPath, [bin, 'tail', '--ndjson'], { env: { ...process.env, ...env } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(events.map((e) => e.log.id)).toContain(sent.id);
    expect(events.every((e) => e.event === 'new')).toBe(true);
  });

  it('--follow: each new log once, then its changes in order, until Ctrl-C stops it (exit 130, a summary)', async () => {
    const child = spawn(process.execPath, [bin, 'tail', '--follow', '--interval', '100ms', '--ndjson'], {
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const events = () =>
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Event);
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await until(() => stdout.length > 0);
    const seenFirst = events().length;
    const fresh = [await send('Followed 1'), await send('Followed 2')];
    const ids = fresh.map((log) => log.id);
    const settled = () =>
      ids.every((id) =>
        events().some((e) => e.log.id === id && e.event === 'status' && e.log.delivery_status === 'read'),
      );
    await until(settled);
    child.kill('SIGINT');
    const code = await closed;
    expect(code).toBe(130);
    expect(stderr).toMatch(/Stopped: \d+ changes seen/);
    const later = events().slice(seenFirst);
    for (const id of ids) {
      const mine = later.filter((e) => e.log.id === id);
      expect(mine.filter((e) => e.event === 'new')).toHaveLength(1);
      expect(mine[0]?.event).toBe('new');
      // Each change once, from what it was to what it is, ending at read.
      const changes = mine.filter((e) => e.event === 'status').map((e) => `${e.from}->${e.log.delivery_status}`);
      expect(new Set(changes).size).toBe(changes.length);
      expect(changes.at(-1)).toMatch(/->read$/);
    }
  }, 20_000);
});
