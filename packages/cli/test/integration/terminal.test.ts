/**
 * What a person sees: the built bin on a real pseudo-terminal (a tmux pane), its screen captured
 * as tmux renders it while the command runs. `wait`'s status line is rewritten in place from
 * `sent` to `delivered` to `read`; `send-many`'s progress bar moves at the bottom with each
 * refused row's note printed whole above it, then is cleared, and the summary and the prompt
 * come after everything, the earlier output untouched.
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

const bin = join(import.meta.dirname, '../../dist/main.js');
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
 * Runs `args` in a detached tmux pane of 100x30 on a server of its own, after two lines of earlier
 * output and followed by a line in place of the shell's prompt (`EXIT=<code> PROMPT`), and
 * captures the screen every 40 ms until `done(screen)` or `timeoutMs`. Returns every distinct
 * screen, in order: as the terminal shows them, or with `joined`, each wrapped line joined again
 * (and then, in `plain`, each as shown).
 */
async function screens(
  sandbox: RunningSandbox,
  args: string[],
  done: (screen: string) => boolean,
  { timeoutMs = 20_000, joined = false } = {},
): Promise<string[] & { plain: string[] }> {
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
  tmux(
    'new-session',
    '-d',
    '-x',
    '100',
    '-y',
    '30',
    '-s',
    'cli',
    `echo EARLIER 1; echo EARLIER 2; ${quoted}; echo "EXIT=$? PROMPT"; sleep 30`,
  );
  const seen = Object.assign([] as string[], { plain: [] as string[] });
  const capture = (...flags: string[]) =>
    tmux('capture-pane', '-p', ...flags, '-t', 'cli')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const screen = capture(...(joined ? ['-J'] : []));
      if (seen.at(-1) !== screen) {
        seen.push(screen);
        seen.plain.push(joined ? capture() : screen);
      }
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
  it("wait's status line changes in place from sent to delivered, then the result says read (not twice)", async () => {
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
      // The status waited for is said once, by the result line.
      expect(order).toEqual([`message log ${log.id}: sent`, `message log ${log.id}: delivered`]);
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

  it('send-many with refused rows: each note whole above the bar, never on its line; the bar moves, then is cleared; the summary and the prompt come last', async () => {
    const rows = 160;
    // Rows 7, 47, 87, 127 have no recipient (the SDK's check: a note longer than the pane's 100
    // columns); rows 23, 63, 103, 143 no text (the CLI's own check).
    const noRecipient = (i: number) => i % 40 === 7;
    const noText = (i: number) => i % 40 === 23;
    const sandbox = await startSandbox({ rateLimit: { perSecond: 100 } });
    try {
      const file = join(dir, 'campaign.csv');
      const lines = Array.from(
        { length: rows },
        (_, i) => `${noRecipient(i) ? '' : SANDBOX_PHONES.reads},${noText(i) ? '' : `Row ${i}`}`,
      );
      await writeFile(file, `to,text\n${lines.join('\n')}\n`);
      const all = await screens(
        sandbox,
        // Two seconds of sending at 80/s: the bar moves through many counts on the way.
        ['send-many', '--file', file, '--from', '+15550001001', '--rate', '80/s'],
        (s) => s.includes('PROMPT'),
        { joined: true },
      );
      const refused = lines.flatMap((_, i) => {
        if (noRecipient(i)) {
          return [
            `line ${i + 2}: failed: ValidationError: Invalid send parameters: - to_phone: must not be blank (the recipient's phone)`,
          ];
        }
        return noText(i)
          ? [`line ${i + 2}: failed: UsageError: give exactly one of text, image, voice or document (all are empty)`]
          : [];
      });
      const bar = new RegExp(`^=*-* (\\d+)/${rows} \\| sent \\d+ failed \\d+ unknown 0 \\| ETA`);
      const counts: number[] = [];
      // From the first screen with both earlier lines on: before it, the shell was still starting
      // (a blank screen, beside two CPU hogs), and the bin had not begun.
      const started = all.findIndex((screen) => screen.includes('EARLIER 2'));
      expect(started).toBeGreaterThanOrEqual(0);
      for (const screen of all.slice(started)) {
        const shown = linesOf(screen);
        expect(shown.slice(0, 2)).toEqual(['EARLIER 1', 'EARLIER 2']);
        const bars = shown.filter((line) => line.includes(`/${rows} |`));
        expect(bars.length).toBeLessThanOrEqual(1);
        if (bars.length === 0) continue;
        // The bar is the bottom line and holds nothing else; every note above it is whole.
        expect(shown.at(-1)).toMatch(bar);
        counts.push(Number(bar.exec(shown.at(-1) as string)?.[1]));
        for (const line of shown.slice(2, -1)) expect(refused).toContain(line);
      }
      // Several distinct counts on the way, never going back.
      expect(new Set(counts).size).toBeGreaterThanOrEqual(3);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      // The end: the notes in order, the bar gone, the summary, then the prompt on the last line.
      expect(linesOf(all.at(-1) as string)).toEqual([
        'EARLIER 1',
        'EARLIER 2',
        ...refused,
        expect.stringMatching(
          new RegExp(
            `^Done in [\\d.]+ s: ${rows - refused.length} sent, ${refused.length} failed, 0 unknown \\(of ${rows} rows\\)\\.$`,
          ),
        ),
        `Failed rows (refused, each with its reason in send_error; fix them and send the file again): ${join(dir, 'campaign.failed.csv')}`,
        'EXIT=1 PROMPT',
      ]);
      // Line wrap stays on: the first note, longer than the pane's 100 columns, wraps (as shown,
      // unjoined), instead of being cut at the width.
      const first = refused[0] as string;
      expect(first.length).toBeGreaterThan(100);
      expect(linesOf(all.plain.at(-1) as string).slice(2, 4)).toEqual([first.slice(0, 100), first.slice(100)]);
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});
