/**
 * `tenant-messaging send-many` stopped by a signal, the built bin as a subprocess, against the
 * sandbox: each stop signal (SIGINT, SIGTERM, SIGHUP) in the middle stops cleanly, and the rows
 * not attempted, sent again, complete the run with no row sent twice; a signal before the
 * handlers, or before any row was read, sends nothing. Runs the build: `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { bin, campaign, FROM, invalid, run, storedByRow, tempFolder, tenants } from './send-many-harness.js';

const dir = tempFolder();

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

describe('send-many stopped by a signal', () => {
  it('SIGINT, SIGTERM and SIGHUP in the middle: sends in flight finish, exit 128 + the signal, and the rows not attempted, sent again, complete the run once each', async () => {
    const rows = 300;
    const valid = Array.from({ length: rows }, (_, i) => i).filter((i) => !invalid(i));
    // The three side by side, each with a sandbox and a file of its own.
    const stops = [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const;
    const stopBy = async ([signal, code]: (typeof stops)[number]) => {
      const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 150 } });
      try {
        const { path, lines } = await campaign(dir(), `interrupted-${signal}.csv`, rows);
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
        if (signal !== 'SIGTERM') return;
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
    };
    await Promise.all(stops.map(stopBy));
  }, 60_000);

  it('a signal before the handlers kills the bare process; one while the bin loads or reads the file: exit 128 + n, nothing sent, the file itself is what remains', async () => {
    const sandbox = await startSandbox({ tenants });
    try {
      const { path } = await campaign(dir(), 'early.csv', 5_000);
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
});
