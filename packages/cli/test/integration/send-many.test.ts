/**
 * `tenant-messaging send-many`, the built bin as a subprocess, against the sandbox: a 1,000-row CSV
 * sent to a rate-limited sandbox that loses answers, nothing sent twice, the refused rows written
 * back as they were with their reason; Excel's BOM and a Latin-1 file; `--track`'s exit code when
 * rows failed and deliveries timed out at once. Stop signals: send-many-signals.test.ts. Runs the
 * build: `npm run build` first (`npm test` does).
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SANDBOX_PHONES, startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { batchExitCode } from '../../src/shell/exit-codes.js';
import { campaign, FROM, invalid, ROWS, run, storedByRow, tempFolder, tenants } from './send-many-harness.js';

const dir = tempFolder();
const REASON = '"UsageError: give exactly one of text, image, voice or document (all are empty)"';

describe('send-many', () => {
  it('1,000 rows against a rate-limited sandbox that loses answers: each valid row stored once, the refused rows written back with their reason', async () => {
    const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 400 } });
    sandbox.faults.add({ kind: 'lost-answer', route: 'sendMessage', ratio: 0.02 });
    try {
      const { path, lines } = await campaign(dir(), 'campaign.csv');
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
      // Answers were lost (about 1 in 50) and reconciled: found in the logs, never sent again.
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

  it("files as people have them: Excel's BOM is skipped (summary on stderr, stdout empty); Latin-1 is refused before any request", async () => {
    const sandbox = await startSandbox({ tenants });
    try {
      const bom = join(dir(), 'excel.csv');
      await writeFile(bom, `\uFEFFto,text\r\n${SANDBOX_PHONES.reads},"Excel, café"\r\n`);
      const sent = await run(sandbox, ['send-many', '--file', bom, ...FROM]);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toBe('');
      expect(sent.stderr).toMatch(/^Done in [\d.]+ s: 1 sent, 0 failed, 0 unknown \(of 1 row\)\.$/m);
      expect(sandbox.messages('acme').map((log) => [log.content, log.request_payload?.to_phone])).toEqual([
        ['Excel, café', SANDBOX_PHONES.reads],
      ]);

      const latin1 = join(dir(), 'latin1.csv');
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
      const reads = join(dir(), 'track.csv');
      await writeFile(
        reads,
        `to,text\n${Array.from({ length: 20 }, (_, i) => `${SANDBOX_PHONES.reads},Tracked ${i}`).join('\n')}\n`,
      );
      // A timeout of 10 s polls every second (a tenth of it), not every 2 s as the default's does.
      const delivered = await run(sandbox, [
        'send-many',
        '--file',
        reads,
        ...FROM,
        '--track',
        '--track-timeout',
        '10s',
        '--json',
      ]);
      expect(delivered.code).toBe(0);
      expect(delivered.summary).toMatchObject({ sent: 20, tracked: { reached: 20, timeout: 0, failed: 0 } });

      const never = join(dir(), 'never.csv');
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
