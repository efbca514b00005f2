/**
 * `send-many` stopped at any moment, as a class: the stop signals (one or two, any of SIGINT,
 * SIGTERM, SIGHUP), the moment of the first (rows stored so far) and of the second (sends stored
 * after it) drawn by fast-check from a fixed seed (printed on failure with the moment). Whatever
 * the moment: the summary is on stdout, every row is in exactly one record (the journal of rows
 * sent, with the log id the service gave it; the unknown, failed or remaining rows' files), a
 * rerun of the file is refused with no request, and resuming (sending the file the refusal names,
 * that run itself stopped once or not) completes the campaign with no row sent twice, no remaining
 * file left to be sent again, and the campaign's journal marked complete. Runs the build:
 * `npm run build` first.
 *
 * The moments run side by side, each against a sandbox and a campaign file of its own: a run's
 * time is the sandbox's latency, not the CPU (fast-check's shrinking is off, as endOnFailure had
 * it, so nothing is lost by not running them one after another). SEND_MANY_SEED replays others.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import fc from 'fast-check';
import { type RunningSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { spawnBin } from '../../../bin-kit/test/integration/bin-process.js';
import {
  bin,
  campaign,
  FROM,
  invalid,
  journalOf,
  posts,
  type Ran,
  rowsOf,
  run,
  type Summary,
  storedIds,
  tempFolder,
  tenants,
} from './send-many-harness.js';

const dir = tempFolder();
const ROWS = 100;
const VALID = Array.from({ length: ROWS }, (_, i) => i).filter((i) => !invalid(i));
const CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
type Stop = keyof typeof CODES;
const stops = fc.constantFrom<Stop>('SIGINT', 'SIGTERM', 'SIGHUP');

/**
 * Runs the bin, sending `signals[0]` once `first()` holds and `signals[1]` (if any) once the bin
 * said it is stopping and `extra` more rows were stored (it is then never sent if fewer were in
 * flight). Conditions polled, never a time.
 */
async function stopped(
  sandbox: RunningSandbox,
  args: string[],
  signals: readonly Stop[],
  first: () => boolean,
  extra = 0,
) {
  const tenant = sandbox.tenants['acme'] as RunningSandbox['tenants'][string];
  const running = spawnBin(bin, args, {
    TENANT_MESSAGING_BASE_URL: tenant.baseUrl,
    TENANT_MESSAGING_API_KEY: tenant.keys.full,
    NO_COLOR: '1',
  });
  const sent: Stop[] = [];
  let storedAtFirst = 0;
  const watch = setInterval(() => {
    const stored = sandbox.messages('acme').length;
    const next = signals[sent.length];
    if (next === undefined) return;
    if (sent.length === 0 ? first() : /stopping/.test(running.stderr()) && stored >= storedAtFirst + extra) {
      if (sent.length === 0) storedAtFirst = stored;
      running.child.kill(next);
      sent.push(next);
    }
  }, 5);
  const code = await running.exit;
  clearInterval(watch);
  let summary: Summary | undefined;
  try {
    summary = JSON.parse(running.stdout()) as Summary;
  } catch {}
  return { code, sent, summary, stderr: running.stderr() };
}

/** The records an interrupted run of `<base>.csv` left, by row index. */
function recordsOf(base: string) {
  const journal = journalOf(`${base}.sent.ndjson`);
  return {
    journal,
    sent: [...journal.keys()],
    unknown: rowsOf(`${base}.unknown.csv`),
    failed: rowsOf(`${base}.failed.csv`),
    remaining: rowsOf(`${base}.remaining.csv`),
  };
}

/** The remaining rows' files of the campaign still on disk (a chain: `a.remaining.remaining.csv`). */
const remainingFiles = (base: string) =>
  readdirSync(dir()).filter((name) => name.startsWith(`${basename(base)}.`) && name.endsWith('.remaining.csv'));

const expectRefused = (ran: Ran, before: number, now: number, what: string) => {
  expect(ran.code, `${what}\n${ran.stderr}`).toBe(2);
  expect(now, `${what}: no POST`).toBe(before);
  expect(ran.stderr, what).toContain('--force');
};

const moment = fc.record({
  signals: fc.array(stops, { minLength: 1, maxLength: 2 }),
  first: fc.integer({ min: 1, max: VALID.length }),
  // 0: the second as soon as the bin says it is stopping, its sends still in flight.
  extra: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 })),
  resumeStop: fc.option(stops, { nil: null }),
});
type Moment = typeof moment extends fc.Arbitrary<infer T> ? T : never;
const SEED = Number(process.env['SEND_MANY_SEED'] ?? 0x5e9d);

describe('send-many stopped at any moment', () => {
  it('every row in exactly one record, a rerun refused with no request, a resume sending none twice', async () => {
    const moments = fc.sample(moment, { seed: SEED, numRuns: 8 });
    const outcomes = await Promise.allSettled(moments.map((m, i) => stoppedAt(m, i + 1)));
    const failed = outcomes.flatMap((outcome, i) =>
      outcome.status === 'rejected' ? [`moment ${i + 1} of seed ${SEED}: ${JSON.stringify(moments[i])}`] : [],
    );
    const first = outcomes.find((outcome) => outcome.status === 'rejected');
    if (first) throw new Error(`${failed.join('\n')}\n\n${String((first as PromiseRejectedResult).reason)}`);
  }, 240_000);
});

/** One moment: its sandbox, its campaign, stopped, rerun, resumed, checked. */
async function stoppedAt(m: Moment, made: number): Promise<void> {
  const sandbox = await startSandbox({ tenants, rateLimit: { perSecond: 200 } });
  // Sends in flight at any moment (4 at a time, each 100 ms): a signal finds some to wait for.
  sandbox.faults.add({ kind: 'latency', latencyMs: 100, route: 'POST /messages', ratio: 1 });
  try {
    const { path } = await campaign(dir(), `stops-${made}.csv`, ROWS);
    const base = path.slice(0, -'.csv'.length);
    const args = ['send-many', '--file', path, ...FROM, '--concurrency', '4', '--json'];
    const first = await stopped(sandbox, args, m.signals, () => sandbox.messages('acme').length >= m.first, m.extra);
    const what = `${JSON.stringify(m)} (signals sent: ${first.sent.join(', ') || 'none'})\n${first.stderr}`;
    if (first.sent.length === 0 || first.summary?.interrupted === false) {
      // The run ended before the moment came (or before its signal was caught): complete,
      // nothing of it left to resume.
      expect(first.code, what).toBe(1);
      expect(recordsOf(base).sent, what).toEqual([]);
      expect(remainingFiles(base), what).toEqual([]);
      return;
    }
    expect(
      first.sent.map((s) => CODES[s]),
      what,
    ).toContain(first.code);
    // The summary, however it was stopped, with the log ids the journal holds.
    const records = recordsOf(base);
    expect(first.summary, what).toMatchObject({ interrupted: true, rows: ROWS });
    expect(new Set(first.summary?.log_ids), what).toEqual(new Set([...records.journal.values()].flat()));
    // Every row in exactly one record.
    const kinds = ['sent', 'unknown', 'failed', 'remaining'] as const;
    for (const i of VALID) {
      expect(
        kinds.filter((kind) => records[kind].includes(i)),
        `${what}: row ${i}`,
      ).toHaveLength(1);
    }
    expect(
      kinds.reduce((n, kind) => n + records[kind].length, 0),
      what,
    ).toBe(ROWS);
    // The journal's log id is the one the service gave; what it stored is sent or unknown.
    const stored = storedIds(sandbox);
    for (const [row, ids] of records.journal) expect(ids, `${what}: row ${row}`).toEqual(stored.get(row));
    for (const [row, ids] of stored) {
      expect(ids, `${what}: row ${row}`).toHaveLength(1);
      expect(records.sent.includes(row) || records.unknown.includes(row), `${what}: row ${row}`).toBe(true);
    }

    // The original again: refused before any request, naming what to send.
    const before = posts(sandbox);
    const again = await run(sandbox, args);
    expectRefused(again, before, posts(sandbox), what);
    if (records.remaining.length === 0) {
      expect(again.stderr, what).toContain('Every row was attempted');
      return;
    }
    expect(again.stderr, what).toContain(`Send ${base}.remaining.csv to go on`);

    // Resumed by the file the refusal names (that run perhaps stopped too: then the refusal
    // names its own remaining file): the campaign ends, no row sent twice.
    const resume = (file: string) => ['send-many', '--file', file, ...FROM, '--concurrency', '4', '--json'];
    let refusal = again;
    if (m.resumeStop && records.remaining.length > 8) {
      const from = sandbox.messages('acme').length;
      const cut = await stopped(sandbox, resume(`${base}.remaining.csv`), [m.resumeStop], () => {
        return sandbox.messages('acme').length > from;
      });
      expect(cut.code, `${what}\nresume stopped:\n${cut.stderr}`).toBe(CODES[m.resumeStop]);
      // The original once more (unless the stopped resume attempted every row): its refusal now
      // names what that resume left. Unstopped, `again` named it already.
      if (remainingFiles(base).length > 0) {
        const beforeResume = posts(sandbox);
        refusal = await run(sandbox, args);
        expectRefused(refusal, beforeResume, posts(sandbox), `${what}: before the resume`);
      }
    }
    // (A resume stopped with every row attempted completed the campaign: nothing is left to send.)
    if (remainingFiles(base).length > 0) {
      const next = /Send (\S+) to go on/.exec(refusal.stderr)?.[1];
      expect(next, `${what}\n${refusal.stderr}`).toBeDefined();
      const last = await run(sandbox, resume(next as string));
      expect(last.summary, `${what}\n${last.stderr}`).toMatchObject({ interrupted: false, remaining: 0 });
    }
    const after = storedIds(sandbox);
    for (const i of VALID) {
      const n = after.get(i)?.length ?? 0;
      if (records.unknown.includes(i)) expect(n, `${what}: row ${i}`).toBeLessThanOrEqual(1);
      else expect(n, `${what}: row ${i} stored once`).toBe(1);
    }
    // Complete: no remaining file is left to be sent again, the campaign's journal is marked.
    expect(remainingFiles(base), what).toEqual([]);
    const journal = readFileSync(`${base}.sent.ndjson`, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(journal.at(-1) as string), what).toMatchObject({ complete: true });
  } finally {
    await sandbox.close();
  }
}
