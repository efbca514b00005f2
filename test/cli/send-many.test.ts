/**
 * `tenant-messaging send-many`, the built bin as a subprocess, against a rate-limited sandbox that
 * also loses some answers after storing the send: a 2,000-row CSV is sent with nothing sent twice,
 * the refused rows written back as they were, and Ctrl-C in the middle stops cleanly with a
 * summary that accounts for every row. Runs the build: `npm run build` first (`npm test` does).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningSandbox, SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '../../dist/cli/main.js');
const ROWS = 2_000;
/** The sandbox's tenant, with room for every row (its default message limit is lower). */
const tenants = [{ slug: 'acme', messageLimit: 10_000, senderNumbers: [{ phone: '+15550001001' }] }];
/** Every 97th row has an empty text: refused by the SDK's checks, never sent. */
const invalid = (i: number) => i % 97 === 13;

let dir: string;
beforeAll(async () => {
  if (!existsSync(bin)) throw new Error('run `npm run build` first (npm test does)');
  dir = await mkdtemp(join(tmpdir(), 'tm-send-many-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A CSV of ROWS rows, with a quoted comma in every text so the writing back is tested too. */
async function campaign(name: string): Promise<{ path: string; lines: string[] }> {
  const lines = ['to,text'];
  for (let i = 0; i < ROWS; i++) lines.push(`${SANDBOX_PHONES.reads},"${invalid(i) ? '' : `Row ${i}, hello`}"`);
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
  files: Record<string, string>;
}

/**
 * Runs the bin to its end. `interruptWhen`, polled every 20 ms, sends Ctrl-C once it holds: a
 * moment the test chooses by what the sandbox stored, never by the clock (a loaded machine took
 * over 1.5 s to load the bin, and a Ctrl-C then came before any row was sent).
 */
function run(sandbox: RunningSandbox, args: string[], interruptWhen?: () => boolean) {
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
    interruptWhen &&
    setInterval(() => {
      if (!interruptWhen()) return;
      clearInterval(watch);
      child.kill('SIGINT');
    }, 20);
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  return new Promise<{ code: number | null; summary: Summary; stderr: string }>((resolve, reject) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      clearInterval(watch);
      try {
        resolve({ code, summary: JSON.parse(stdout) as Summary, stderr });
      } catch {
        reject(new Error(`send-many exited ${code} without a JSON summary; stdout: ${stdout}; stderr: ${stderr}`));
      }
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

describe('send-many', () => {
  it('2,000 rows against a rate-limited sandbox that loses answers: each valid row stored once, the refused rows written back', async () => {
    const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 400 } });
    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', ratio: 0.01 });
    try {
      const { path, lines } = await campaign('campaign.csv');
      const { code, summary } = await run(sandbox, [
        'send-many',
        '--file',
        path,
        '--from',
        '+15550001001',
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
      // Answers were lost (about 1 in 100) and reconciled: found in the logs, never sent again.
      expect(sandbox.faults.injected).toBeGreaterThan(5);
      const stored = storedByRow(sandbox);
      expect([...stored.values()].every((n) => n === 1)).toBe(true);
      // Every valid row was stored once: the unknown ones too (their answers were lost after storing).
      expect(stored.size).toBe(ROWS - refused.length);
      if (summary.unknown > 0) {
        const unknownFile = await readFile(summary.files['unknown'] as string, 'utf8');
        expect(unknownFile.trim().split('\n')).toHaveLength(summary.unknown + 1);
      }
      // The failed file: the header and exactly the refused rows, as they were, in order.
      const failedFile = await readFile(summary.files['failed'] as string, 'utf8');
      expect(failedFile).toBe(`${[lines[0], ...refused.map((i) => lines[i + 1])].join('\n')}\n`);
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it('Ctrl-C in the middle: a clean stop, every row accounted for, the rows not attempted written back, none stored twice', async () => {
    const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 150 } });
    try {
      const { path, lines } = await campaign('interrupted.csv');
      const { code, summary, stderr } = await run(
        sandbox,
        ['send-many', '--file', path, '--from', '+15550001001', '--concurrency', '4', '--json'],
        () => sandbox.messages('acme').length >= 100,
      );
      expect(code).toBe(130);
      expect(stderr).toMatch(/Interrupted/);
      expect(summary.interrupted).toBe(true);
      expect(summary.sent + summary.failed + summary.unknown + summary.remaining).toBe(ROWS);
      expect(summary.sent).toBeGreaterThan(0);
      expect(summary.remaining).toBeGreaterThan(0);
      const stored = storedByRow(sandbox);
      expect([...stored.values()].every((n) => n === 1)).toBe(true);
      expect(stored.size).toBe(summary.sent);
      // The rows not attempted: none of them was stored, and with the stored and refused ones they are every row.
      const remaining = (await readFile(summary.files['remaining'] as string, 'utf8')).trim().split('\n');
      expect(remaining[0]).toBe(lines[0]);
      expect(remaining).toHaveLength(summary.remaining + 1);
      const remainingRows = remaining.slice(1).map((line) => lines.indexOf(line) - 1);
      expect(remainingRows.every((i) => i >= 0 && !stored.has(i))).toBe(true);
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it('--track follows the sent messages: all reach delivered, or a timeout gives exit code 4', async () => {
    const sandbox = await startSandbox({ tenants, delivery: { deliveredAfterMs: 50, readAfterMs: 100 } });
    try {
      const reads = join(dir, 'track.csv');
      await writeFile(
        reads,
        `to,text\n${Array.from({ length: 20 }, (_, i) => `${SANDBOX_PHONES.reads},Tracked ${i}`).join('\n')}\n`,
      );
      const delivered = await run(sandbox, [
        'send-many',
        '--file',
        reads,
        '--from',
        '+15550001001',
        '--track',
        '--json',
      ]);
      expect(delivered.code).toBe(0);
      expect(delivered.summary).toMatchObject({ sent: 20, tracked: { reached: 20, timeout: 0, failed: 0 } });

      const never = join(dir, 'never.csv');
      await writeFile(
        never,
        `to,text\n${SANDBOX_PHONES.neverDelivered},Never delivered\n${SANDBOX_PHONES.reads},Delivered\n`,
      );
      const late = await run(sandbox, [
        'send-many',
        '--file',
        never,
        '--from',
        '+15550001001',
        '--track',
        '--track-timeout',
        '1s',
        '--json',
      ]);
      expect(late.code).toBe(4);
      expect(late.summary).toMatchObject({ sent: 2, tracked: { reached: 1, timeout: 1, failed: 0 } });
    } finally {
      await sandbox.close();
    }
  }, 30_000);
});
