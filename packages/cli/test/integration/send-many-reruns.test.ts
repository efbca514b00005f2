/**
 * `send-many` run again after a stop the moments of send-many-stops.test.ts do not reach: a stop
 * while `--track` follows the rows sent (every row was sent: a rerun would send them all twice),
 * and `--force` (the file sent whole again on purpose): its records are this run's alone, the
 * earlier run's remaining rows' file gone, so that what it names is never sent twice after it.
 * Runs the build: `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { campaign, FROM, journalOf, posts, rowsOf, run, storedIds, tempFolder, tenants } from './send-many-harness.js';

const dir = tempFolder();

/** The bin run to its end, `signal` sent once `when` holds (polled every 5 ms). */
const stopWhen = (sandbox: RunningSandbox, args: string[], signal: NodeJS.Signals, when: (stderr: string) => boolean) =>
  run(sandbox, args, { signal, when: (_, stderr) => when(stderr), pollMs: 5 });

describe('send-many run again', () => {
  it('stopped while --track follows the rows sent: the journal stays, and a rerun of the file is refused with no request', async () => {
    const sandbox = await startSandbox({ tenants });
    try {
      const { path } = await campaign(dir(), 'tracked.csv', 20);
      const base = path.slice(0, -'.csv'.length);
      const args = ['send-many', '--file', path, ...FROM, '--json'];
      // A status no message here reaches soon: the tracking is what the stop cuts.
      const stopped = await stopWhen(sandbox, [...args, '--track', 'read'], 'SIGTERM', (err) => /Tracking/.test(err));
      expect(stopped.code, stopped.stderr).toBe(143);
      expect(stopped.summary).toMatchObject({ sent: 19, remaining: 0, interrupted: true });
      expect(stopped.summary?.files['sent']).toBe(`${base}.sent.ndjson`);
      expect([...journalOf(`${base}.sent.ndjson`).values()].flat().sort()).toEqual(
        [...(stopped.summary?.log_ids ?? [])].sort(),
      );
      const before = posts(sandbox);
      const again = await run(sandbox, args);
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain('--force');
      expect(posts(sandbox)).toBe(before);
      expect(again.stderr).toContain('Every row was attempted');
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it('--force after an interrupted run: its journal holds its own rows alone, the stale remaining file goes, a complete run removes both', async () => {
    const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 100 } });
    sandbox.faults.add({ kind: 'latency', latencyMs: 100, route: 'POST /messages', ratio: 1 });
    try {
      const { path } = await campaign(dir(), 'forced.csv', 60);
      const base = path.slice(0, -'.csv'.length);
      const args = ['send-many', '--file', path, ...FROM, '--concurrency', '4', '--json'];
      const stored = () => sandbox.messages('acme').length;
      const first = await stopWhen(sandbox, args, 'SIGINT', () => stored() >= 10);
      expect(first.code, first.stderr).toBe(130);
      expect(existsSync(`${base}.remaining.csv`)).toBe(true);
      // Forced, and stopped once the rows the first run did not reach are being sent (about 14 did;
      // 19 are left to send at the stop, 5 rounds of 100 ms for the signal to land in).
      const from = stored();
      const forced = await stopWhen(sandbox, [...args, '--force'], 'SIGINT', () => stored() >= from + 40);
      expect(forced.code, forced.stderr).toBe(130);
      const journal = journalOf(`${base}.sent.ndjson`);
      expect([...journal.values()].every((ids) => ids.length === 1)).toBe(true);
      expect(new Set([...journal.values()].flat())).toEqual(new Set(forced.summary?.log_ids));
      // What the remaining file names is what this run did not attempt, none of it sent by it.
      const ids = storedIds(sandbox);
      const forcedIds = new Set(forced.summary?.log_ids);
      for (const row of rowsOf(`${base}.remaining.csv`)) {
        expect(ids.get(row)?.some((id) => forcedIds.has(id)) ?? false, `row ${row}`).toBe(false);
      }
      expect(forced.summary?.remaining).toBe(rowsOf(`${base}.remaining.csv`).length);
      const complete = await run(sandbox, [...args, '--force']);
      expect(complete.summary, complete.stderr).toMatchObject({ interrupted: false, remaining: 0 });
      expect(complete.summary.files).not.toHaveProperty('sent');
      expect(existsSync(`${base}.sent.ndjson`)).toBe(false);
      expect(existsSync(`${base}.remaining.csv`)).toBe(false);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
