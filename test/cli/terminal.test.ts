/**
 * What a person sees: the built bin on a real pseudo-terminal (a tmux pane), its screen captured
 * as tmux renders it while the command runs. `wait`'s status line is rewritten in place from
 * `sent` to `delivered` to `read`; `send-many`'s progress bar moves, then the summary shows.
 * Needs `tmux` (Debian's package; `.ci/run` installs it): without it these tests skip locally
 * with a line saying how to install it, and fail under `CI=true`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessagingClient } from 'tenant-messaging';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../dist/cli/main.js');
const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

function tmuxAvailable(): boolean {
  if (hasTmux) return true;
  const hint = 'tmux is not on the PATH: install it with `apt-get install -y tmux` to run the terminal tests';
  if (process.env['CI'] === 'true') throw new Error(`${hint} (they may not skip under CI=true)`);
  console.warn(`SKIPPED: ${hint}`);
  return false;
}
const runs = tmuxAvailable();

let dir: string;
beforeAll(async () => {
  if (!runs) return;
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  dir = await mkdtemp(join(tmpdir(), 'tm-terminal-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `args` in a detached tmux pane of 100x20 on a server of its own, and captures the screen
 * every 40 ms until `done(screen)` or `timeoutMs`. Returns every distinct screen, in order.
 */
async function screens(
  sandbox: RunningSandbox,
  args: string[],
  done: (screen: string) => boolean,
  timeoutMs = 20_000,
): Promise<string[]> {
  const socket = `tm-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  const env = {
    ...process.env,
    TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
    TENANT_MESSAGING_API_KEY: tenant.keys.full,
    TERM: 'xterm-256color',
    NO_COLOR: '1',
  };
  const tmux = (...more: string[]) =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...more], { env }).toString();
  const quoted = [process.execPath, bin, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  // The pane stays after the command exits, so its last screen can be read.
  tmux('new-session', '-d', '-x', '100', '-y', '20', '-s', 'cli', `${quoted}; sleep 30`);
  const seen: string[] = [];
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const screen = tmux('capture-pane', '-p', '-t', 'cli');
      if (seen.at(-1) !== screen) seen.push(screen);
      if (done(screen)) break;
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  } finally {
    tmux('kill-server');
  }
  return seen;
}

/** The screen's lines, without the blank ones. */
const linesOf = (screen: string) => screen.split('\n').filter((line) => line.trim() !== '');

describe.runIf(runs)('on a terminal', () => {
  it("wait's status line changes in place from sent to delivered to read", async () => {
    // Delivered and read only when the test says so (below).
    const sandbox = await startSandbox({ delivery: { deliveredAfterMs: 600_000, readAfterMs: 600_000 } });
    try {
      const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
      const client = new MessagingClient({ baseUrl: tenant.baseUrl, apiKey: tenant.keys.full });
      const log = await client.messages.send({
        sender_phone: '+15550001001',
        to_phone: SANDBOX_PHONES.reads,
        type: 'text',
        content: 'Watch me',
      });
      await client.close();
      // The test moves the status once the screen showed the last one, however slowly the bin
      // starts and polls (on the sandbox's clock, a loaded machine's bin first saw 'delivered').
      const all = await screens(
        sandbox,
        ['wait', String(log.id), '--until', 'read', '--interval', '250ms'],
        (screen) => {
          if (screen.includes(`message log ${log.id}: sent`)) sandbox.setDeliveryStatus('acme', log.id, 'delivered');
          if (screen.includes(`message log ${log.id}: delivered`)) sandbox.setDeliveryStatus('acme', log.id, 'read');
          return screen.includes(`read: message log ${log.id}`);
        },
      );
      const status = (s: string) => linesOf(s).find((line) => line.startsWith(`message log ${log.id}: `));
      const order = [...new Set(all.map(status).filter((line) => line !== undefined))];
      expect(order).toEqual([
        `message log ${log.id}: sent`,
        `message log ${log.id}: delivered`,
        `message log ${log.id}: read`,
      ]);
      // Rewritten in place: no screen ever shows two status lines.
      for (const screen of all) {
        expect(linesOf(screen).filter((line) => line.startsWith(`message log ${log.id}: `)).length).toBeLessThanOrEqual(
          1,
        );
      }
      expect(linesOf(all.at(-1) as string)).toContain(`read: message log ${log.id}: text, read`);
    } finally {
      await sandbox.close();
    }
  }, 30_000);

  it("send-many's progress bar moves, then the summary shows", async () => {
    const rows = 160;
    const sandbox = await startSandbox({ rateLimit: { perSecond: 50 } });
    try {
      const file = join(dir, 'campaign.csv');
      await writeFile(
        file,
        `to,text\n${Array.from({ length: rows }, (_, i) => `${SANDBOX_PHONES.reads},Row ${i}`).join('\n')}\n`,
      );
      const all = await screens(
        sandbox,
        ['send-many', '--file', file, '--from', '+15550001001', '--rate', '40/s'],
        (s) => s.includes('Done in'),
      );
      const counts = all
        .map((screen) => new RegExp(`(\\d+)/${rows} \\| sent`).exec(screen)?.[1])
        .filter((n) => n !== undefined)
        .map(Number);
      // Several distinct counts on the way, never going back, ending at every row.
      expect(new Set(counts.filter((n) => n < rows)).size).toBeGreaterThanOrEqual(3);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(counts.at(-1)).toBe(rows);
      expect(all.at(-1)).toMatch(new RegExp(`Done in [\\d.]+ s: ${rows} sent, 0 failed, 0 unknown`));
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});
