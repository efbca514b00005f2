/**
 * `tenant-messaging send-many`, the built bin as a subprocess, against the sandbox: a 2,000-row CSV
 * sent to a rate-limited sandbox that loses answers, nothing sent twice, the refused rows written
 * back as they were with their reason; each stop signal (SIGINT, SIGTERM, SIGHUP) in the middle
 * stops cleanly, and the rows not attempted, sent again, complete the run with no row sent twice;
 * a signal before the handlers, or before any row was read, sends nothing; Excel's BOM and a
 * Latin-1 file; `--track`'s exit code when rows failed and deliveries timed out at once. Runs the
 * build: `npm run build` first (`npm test` does).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchExitCode } from '../src/exit-codes.js';

const bin = join(import.meta.dirname, '../dist/main.js');
const ROWS = 2_000;
/** The sandbox's tenant, with room for every row (its default message limit is lower). */
const tenants = [{ slug: 'acme', messageLimit: 10_000, senderNumbers: [{ phone: '+15550001001' }] }];
/** Every 97th row has an empty text: refused by the CLI's checks, never sent. */
const invalid = (i: number) => i % 97 === 13;

let dir: string;
beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  dir = await mkdtemp(join(tmpdir(), 'tm-send-many-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A CSV of `rows` rows, with a quoted comma in every text so the writing back is tested too. */
async function campaign(name: string, rows = ROWS): Promise<{ path: string; lines: string[] }> {
  const lines = ['to,text'];
  for (let i = 0; i < rows; i++) lines.push(`${SANDBOX_PHONES.reads},"${invalid(i) ? '' : `Row ${i}, hello`}"`);
  const path = join(dir, name);
  await writeFile(path, `${lines.join('\n')}\n`);
  return { path, lines };
}

interface Summary {
  rows: number;
  sent: number;
  failed: number;
  unknown: number;
  remaining: number;
  interrupted: boolean;
  signal?: string;
  tracked?: { reached: number; timeout: number; failed: number };
  files: Record<string, string>;
}

interface Ran {
  code: number | null;
  /** The signal that killed the process, if one did (a signal before the bin's handlers). */
  killedBy: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as JSON, with --json. */
  summary: Summary;
}

/**
 * Runs the bin to its end. `signalWhen`, polled every `pollMs`, sends its signal once it holds (a
 * moment the test chooses by what the sandbox stored or the process shows, never by the clock: a
 * loaded machine took over 1.5 s to load the bin).
 */
function run(
  sandbox: RunningSandbox,
  args: string[],
  signalWhen?: { signal: NodeJS.Signals; when: (child: ChildProcess) => boolean; pollMs?: number },
): Promise<Ran> {
  const tenant = sandbox.tenants['acme'] as (typeof sandbox.tenants)[string];
  const child = spawn(process.execPath, [bin, ...args], {
    env: {
      ...process.env,
      TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
      TENANT_MESSAGING_API_KEY: tenant.keys.full,
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const watch =
    signalWhen &&
    setInterval(() => {
      if (!signalWhen.when(child)) return;
      clearInterval(watch);
      child.kill(signalWhen.signal);
    }, signalWhen.pollMs ?? 20);
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise((resolve) =>
    child.once('close', (code, killedBy) => {
      clearTimeout(timer);
      clearInterval(watch);
      let summary: Summary;
      try {
        summary = JSON.parse(stdout) as Summary;
      } catch {
        summary = undefined as unknown as Summary;
      }
      resolve({ code, killedBy, stdout, stderr, summary });
    }),
  );
}

/** How many times the sandbox stored each row's text. */
function storedByRow(sandbox: RunningSandbox): Map<number, number> {
  const counts = new Map<number, number>();
  for (const log of sandbox.messages('acme')) {
    const row = /^Row (\d+), hello$/.exec(log.content ?? '')?.[1];
    if (row !== undefined) counts.set(Number(row), (counts.get(Number(row)) ?? 0) + 1);
  }
  return counts;
}

/**
 * Whether the bin has its handler for `signal` in place (Linux: the caught-signals mask of the
 * process, once it runs the bin: before its exec, the forked child still has the test's handlers).
 */
async function handles(child: ChildProcess, signal: number): Promise<boolean> {
  const command = await readFile(`/proc/${child.pid}/cmdline`, 'utf8').catch(() => '');
  if (!command.includes(bin)) return false;
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return mask !== undefined && (BigInt(`0x${mask}`) & (1n << BigInt(signal - 1))) !== 0n;
}

const FROM = ['--from', '+15550001001'];
const REASON = '"UsageError: give exactly one of text, image, voice or document (all are empty)"';

describe('send-many', () => {
  it('2,000 rows against a rate-limited sandbox that loses answers: each valid row stored once, the refused rows written back with their reason', async () => {
    const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 400 } });
    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', ratio: 0.01 });
    try {
      const { path, lines } = await campaign('campaign.csv');
      const { code, summary, stderr } = await run(sandbox, [
        'send-many',
        '--file',
        path,
        ...FROM,
        '--concurrency',
        '8',
        '--json',
      ]);
      const refused = Array.from({ length: ROWS }, (_, i) => i).filter(invalid);
      // A lost answer is reconciled against the logs; if that search itself is refused (429s on
      // a loaded machine) the row ends unknown, never sent again, and goes to the unknown file.
      expect(summary).toMatchObject({ rows: ROWS, failed: refused.length, remaining: 0, interrupted: false });
      expect(summary.sent + summary.unknown).toBe(ROWS - refused.length);
      expect(code).toBe(summary.unknown > 0 ? 3 : 1);
      // Each refusal noted on stderr, whole, with its line.
      expect(stderr).toContain(`line ${(refused[0] ?? 0) + 2}: failed: UsageError: give exactly one of text`);
      // Answers were lost (about 1 in 100) and reconciled: found in the logs, never sent again.
      expect(sandbox.faults.injected).toBeGreaterThan(5);
      const stored = storedByRow(sandbox);
      expect([...stored.values()].every((n) => n === 1)).toBe(true);
      // Every valid row was stored once: the unknown ones too (their answers were lost after storing).
      expect(stored.size).toBe(ROWS - refused.length);
      if (summary.unknown > 0) {
        const unknownFile = (await readFile(summary.files['unknown'] as string, 'utf8')).trim().split('\n');
        expect(unknownFile).toHaveLength(summary.unknown + 1);
        expect(unknownFile[0]).toBe('to,text,send_error');
        expect(unknownFile[1]).toMatch(/^\+15557654321,"Row \d+, hello","SendOutcomeUnknownError: /);
      }
      // The failed file: the header and exactly the refused rows, each as it was and its reason, in order.
      const failedFile = await readFile(summary.files['failed'] as string, 'utf8');
      expect(failedFile).toBe(
        `${['to,text,send_error', ...refused.map((i) => `${lines[i + 1]},${REASON}`)].join('\n')}\n`,
      );
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it('SIGINT, SIGTERM and SIGHUP in the middle: sends in flight finish, exit 128 + the signal, and the rows not attempted, sent again, complete the run once each', async () => {
    const rows = 300;
    const valid = Array.from({ length: rows }, (_, i) => i).filter((i) => !invalid(i));
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const) {
      const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 150 } });
      try {
        const { path, lines } = await campaign(`interrupted-${signal}.csv`, rows);
        const stopped = await run(sandbox, ['send-many', '--file', path, ...FROM, '--concurrency', '4', '--json'], {
          signal,
          when: () => sandbox.messages('acme').length >= 100,
        });
        expect(stopped.code, stopped.stderr).toBe(code);
        expect(stopped.stderr).toMatch(
          new RegExp(`Interrupted \\(${signal === 'SIGINT' ? 'Ctrl-C' : signal}\\): stopping`),
        );
        const { summary } = stopped;
        expect(summary).toMatchObject({ interrupted: true, signal, rows });
        expect(summary.sent + summary.failed + summary.unknown + summary.remaining).toBe(rows);
        expect(summary.sent).toBeGreaterThan(0);
        expect(summary.remaining).toBeGreaterThan(0);
        const stored = storedByRow(sandbox);
        expect([...stored.values()].every((n) => n === 1)).toBe(true);
        expect(stored.size).toBe(summary.sent + summary.unknown);
        // The rows not attempted: as they were, none of them stored.
        const remaining = (await readFile(summary.files['remaining'] as string, 'utf8')).trim().split('\n');
        expect(remaining[0]).toBe(lines[0]);
        expect(remaining).toHaveLength(summary.remaining + 1);
        const remainingRows = remaining.slice(1).map((line) => lines.indexOf(line) - 1);
        expect(remainingRows.every((i) => i >= 0 && !stored.has(i))).toBe(true);
        if (signal !== 'SIGTERM') continue;
        // A process manager's restart: the remaining file sent again completes the campaign.
        const again = await run(sandbox, [
          'send-many',
          '--file',
          summary.files['remaining'] as string,
          ...FROM,
          '--json',
        ]);
        expect(again.summary).toMatchObject({ rows: summary.remaining, remaining: 0, interrupted: false });
        const after = storedByRow(sandbox);
        expect([...after.values()].every((n) => n === 1)).toBe(true);
        expect(after.size).toBe(valid.length - summary.unknown - again.summary.unknown);
      } finally {
        await sandbox.close();
      }
    }
  }, 60_000);

  it('a signal before the handlers kills the bare process; one while the bin loads or reads the file: exit 128 + n, nothing sent, the file itself is what remains', async () => {
    const sandbox = await startSandbox({ tenants });
    try {
      const { path } = await campaign('early.csv', 5_000);
      const args = ['send-many', '--file', path, ...FROM, '--json'];
      // At once after spawn: Node has not run the bin yet, so the signal's default action ends it
      // (no output, no exit code of ours); or the handlers were just in place: 143. Nothing sent either way.
      const bare = await run(sandbox, args, { signal: 'SIGTERM', when: () => true, pollMs: 0 });
      expect(bare.killedBy === 'SIGTERM' || bare.code === 143, `${bare.code} ${bare.killedBy}`).toBe(true);
      // Once the bin's handler is in place (SIGHUP in the process's caught-signal mask: Node itself
      // catches SIGTERM from its start), while the modules load or the file is read through: nothing
      // is sent, no file is written, and the summary names the input as what remains.
      let ready = false;
      const loading = await run(sandbox, args, {
        signal: 'SIGHUP',
        when: (child) => {
          void handles(child, 1).then((yes) => {
            ready ||= yes;
          });
          return ready;
        },
        pollMs: 1,
      });
      expect(loading.code, loading.stderr).toBe(129);
      expect(loading.stderr).toContain('Interrupted (SIGHUP): stopping.');
      expect(loading.summary).toMatchObject({ sent: 0, failed: 0, unknown: 0, remaining: 5_000, signal: 'SIGHUP' });
      expect(loading.summary.files).toEqual({ remaining: path });
      expect(existsSync(path.replace('.csv', '.remaining.csv'))).toBe(false);
      expect(sandbox.messages('acme')).toHaveLength(0);
    } finally {
      await sandbox.close();
    }
  }, 30_000);

  it("files as people have them: Excel's BOM is skipped (summary on stderr, stdout empty); Latin-1 is refused before any request", async () => {
    const sandbox = await startSandbox({ tenants });
    try {
      const bom = join(dir, 'excel.csv');
      await writeFile(bom, `\uFEFFto,text\r\n${SANDBOX_PHONES.reads},"Excel, café"\r\n`);
      const sent = await run(sandbox, ['send-many', '--file', bom, ...FROM]);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toBe('');
      expect(sent.stderr).toMatch(/^Done in [\d.]+ s: 1 sent, 0 failed, 0 unknown \(of 1 row\)\.$/m);
      expect(sandbox.messages('acme').map((log) => [log.content, log.request_payload?.to_phone])).toEqual([
        ['Excel, café', SANDBOX_PHONES.reads],
      ]);

      const latin1 = join(dir, 'latin1.csv');
      await writeFile(latin1, Buffer.from(`to,text\n${SANDBOX_PHONES.reads},caf\xe9 latin1 row\n`, 'latin1'));
      const refused = await run(sandbox, ['send-many', '--file', latin1, ...FROM]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${latin1} is not valid UTF-8 at line 2, byte offset 24 (0xE9 `);
      expect(refused.stderr).toContain('Save the file as "CSV UTF-8"');
      expect(sandbox.messages('acme')).toHaveLength(1);
      expect(existsSync(latin1.replace('.csv', '.failed.csv'))).toBe(false);
    } finally {
      await sandbox.close();
    }
  }, 30_000);

  it('--track: all reach delivered (exit 0); rows refused and deliveries timed out at once exit 1, the refused rows first', async () => {
    const sandbox = await startSandbox({ tenants, delivery: { deliveredAfterMs: 50, readAfterMs: 100 } });
    try {
      const reads = join(dir, 'track.csv');
      await writeFile(
        reads,
        `to,text\n${Array.from({ length: 20 }, (_, i) => `${SANDBOX_PHONES.reads},Tracked ${i}`).join('\n')}\n`,
      );
      const delivered = await run(sandbox, ['send-many', '--file', reads, ...FROM, '--track', '--json']);
      expect(delivered.code).toBe(0);
      expect(delivered.summary).toMatchObject({ sent: 20, tracked: { reached: 20, timeout: 0, failed: 0 } });

      const never = join(dir, 'never.csv');
      await writeFile(
        never,
        `to,text\n${SANDBOX_PHONES.neverDelivered},Never delivered\n${SANDBOX_PHONES.reads},Delivered\n${SANDBOX_PHONES.reads},\n`,
      );
      const late = await run(sandbox, [
        'send-many',
        '--file',
        never,
        ...FROM,
        '--track',
        '--track-timeout',
        '1s',
        '--json',
      ]);
      expect(late.summary).toMatchObject({ sent: 2, failed: 1, tracked: { reached: 1, timeout: 1, failed: 0 } });
      expect(late.code).toBe(1);
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});

describe('send-many exit code precedence', () => {
  it('interrupted, then unknown, then failed (rows refused), then sent (deliveries tracked but not confirmed), then 0', () => {
    const none = { unknown: 0, failed: 0, unconfirmed: 0 };
    expect(batchExitCode(none)).toBe(0);
    expect(batchExitCode({ ...none, unconfirmed: 3 })).toBe(5);
    expect(batchExitCode({ ...none, failed: 1, unconfirmed: 3 })).toBe(1);
    expect(batchExitCode({ unknown: 1, failed: 1, unconfirmed: 3 })).toBe(3);
    expect(batchExitCode({ interrupted: 143, unknown: 1, failed: 1, unconfirmed: 3 })).toBe(143);
    expect(batchExitCode({ interrupted: 129, ...none })).toBe(129);
  });
});
