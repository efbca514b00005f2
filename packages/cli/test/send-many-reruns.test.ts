/**
 * `send-many` interrupted, however it is stopped (one stop signal, or a second one that ends the
 * process at once while sends are in flight), at moments drawn from seeds: every row ends in exactly one record (the
 * journal of rows sent with their log ids, the unknown, failed or remaining rows' files), each row
 * the sandbox stored is in the journal or the unknown file, and a rerun of the original file is
 * refused, naming the remaining file and `--force`, before any request. The remaining file sent
 * then completes the campaign with no row sent twice; a complete run removes the stale records.
 * Runs the build: `npm run build` first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/sandbox/random.js';
import { spawnBin } from '../../bin-kit/test/bin-process.js';
import { bin, campaign, FROM, invalid, run, storedByRow, tempFolder, tenants } from './send-many-harness.js';

const dir = tempFolder();
const ROWS = 150;

/** The rows (by index) a record file holds: a CSV of rows written back, or the journal's lines. */
function rowsIn(path: string): number[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.sent.ndjson')) {
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { line?: number })
      .flatMap((entry) => (entry.line === undefined ? [] : [entry.line - 2]));
  }
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const row = /Row (\d+), hello/.exec(line)?.[1];
      return row === undefined ? -1 : Number(row);
    });
}

/**
 * One interrupted run: `signals` stop signals, the first once `first` rows are stored, the second
 * once the bin said it is stopping (its sends in flight then still are: each takes 200 ms).
 */
async function interrupted(sandbox: RunningSandbox, name: string, signals: 1 | 2, first: number) {
  const { path } = await campaign(dir(), name, ROWS);
  const tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
  const running = spawnBin(bin, ['send-many', '--file', path, ...FROM, '--concurrency', '4', '--json'], {
    TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
    TENANT_MESSAGING_API_KEY: tenant.keys.full,
    NO_COLOR: '1',
  });
  let sent = 0;
  const watch = setInterval(() => {
    const stored = sandbox.messages('acme').length;
    if (sent === 0 && stored >= first) {
      running.child.kill('SIGINT');
      sent = 1;
    } else if (sent === 1 && signals === 2 && /stopping/.test(running.stderr())) {
      running.child.kill('SIGINT');
      sent = 2;
    }
  }, 5);
  const code = await running.exit;
  clearInterval(watch);
  return { path, code, stderr: running.stderr(), signalsSent: sent };
}

describe('send-many interrupted, then run again', () => {
  it('leaves every row in exactly one record, refuses a rerun of the file, and the remaining file completes it once each', async () => {
    for (const [seed, signals] of [
      [0x9a01, 1],
      [0x9a02, 2],
      [0x9a03, 2],
      [0x9a04, 1],
      [0x9a05, 2],
    ] as const) {
      const first = 5 + Math.floor(seededRandom(seed)() * 60);
      const what = `seed ${seed}: ${signals} signal(s), the first at ${first} stored`;
      const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 100 } });
      sandbox.faults.add({ kind: 'latency', latencyMs: 200, route: 'POST /messages', ratio: 1 });
      try {
        const stopped = await interrupted(sandbox, `campaign-${seed}.csv`, signals, first);
        expect(stopped.code, `${what}\n${stopped.stderr}`).toBe(130);
        expect(stopped.signalsSent, what).toBe(signals);
        // A second signal ends the process at once, and it says where every row went.
        if (signals === 2) expect(stopped.stderr, what).toMatch(/Stopped at once: .*sent \(their log ids: /);
        const base = stopped.path.replace(/\.csv$/, '');
        const records = {
          sent: rowsIn(`${base}.sent.ndjson`),
          unknown: rowsIn(`${base}.unknown.csv`),
          failed: rowsIn(`${base}.failed.csv`),
          remaining: rowsIn(`${base}.remaining.csv`),
        };
        // Invalid rows have no text: they are failed (or remaining when not reached), shown as -1.
        const valid = Array.from({ length: ROWS }, (_, i) => i).filter((i) => !invalid(i));
        for (const i of valid) {
          const where = Object.entries(records).filter(([, rows]) => rows.includes(i));
          expect(
            where.map(([kind]) => kind),
            `${what}: row ${i}`,
          ).toHaveLength(1);
        }
        const counted = Object.values(records).reduce((n, rows) => n + rows.length, 0);
        expect(counted, what).toBe(ROWS);
        // What the service stored is what the records say may have been sent.
        const stored = storedByRow(sandbox);
        for (const [row, n] of stored) {
          expect(n, `${what}: row ${row} stored`).toBe(1);
          expect(records.sent.includes(row) || records.unknown.includes(row), `${what}: row ${row}`).toBe(true);
        }
        for (const row of records.sent) expect(stored.get(row), `${what}: row ${row} in the journal`).toBe(1);

        sandbox.faults.clear();
        // The original again: refused before any request, naming what to send instead.
        const before = sandbox.messages('acme').length;
        const again = await run(sandbox, ['send-many', '--file', stopped.path, ...FROM, '--json']);
        expect(again.code, what).toBe(2);
        expect(again.stderr).toContain(`${base}.sent.ndjson`);
        expect(again.stderr).toContain('--force');
        if (records.remaining.length > 0) expect(again.stderr).toContain(`Send ${base}.remaining.csv to go on`);
        expect(sandbox.messages('acme').length).toBe(before);

        // The remaining rows: sent once each; nothing stored twice.
        if (records.remaining.length > 0) {
          const rest = await run(sandbox, ['send-many', '--file', `${base}.remaining.csv`, ...FROM, '--json']);
          expect(rest.summary, `${what}\n${rest.stderr}`).toMatchObject({ remaining: 0, interrupted: false });
          expect(
            [...storedByRow(sandbox).values()].every((n) => n === 1),
            what,
          ).toBe(true);
          // The campaign is complete: the remaining file (all sent) is gone, the journal kept and marked.
          expect(existsSync(`${base}.remaining.csv`), what).toBe(false);
          const journal = readFileSync(`${base}.sent.ndjson`, 'utf8').trimEnd().split('\n');
          expect(JSON.parse(journal.at(-1) as string), what).toMatchObject({ complete: true });
        }
      } finally {
        await sandbox.close();
      }
    }
  }, 120_000);

  it('a complete run of the file (--force after an interrupted one) removes the stale journal and remaining file', async () => {
    const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 100 } });
    try {
      const stopped = await interrupted(sandbox, 'forced.csv', 1, 10);
      const base = stopped.path.replace(/\.csv$/, '');
      expect(existsSync(`${base}.sent.ndjson`)).toBe(true);
      expect(existsSync(`${base}.remaining.csv`)).toBe(true);
      const forced = await run(sandbox, ['send-many', '--file', stopped.path, ...FROM, '--force', '--json']);
      expect(forced.summary, forced.stderr).toMatchObject({ interrupted: false, remaining: 0 });
      expect(forced.summary.files).not.toHaveProperty('sent');
      expect(existsSync(`${base}.sent.ndjson`)).toBe(false);
      expect(existsSync(`${base}.remaining.csv`)).toBe(false);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
