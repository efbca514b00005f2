/**
 * A worker that lost a job's lock writes nothing more and never POSTs: whichever write finds the
 * lock gone (the `in-flight` mark, the answer, a reconcile page, a poll), across answers that lead
 * through every step, the start ends with `LockLost`, no request follows the refused write, and no
 * update is published after it; also when the mark is confirmed late and the POST goes in a second
 * pass, whose proof of the lock may be the write found lost.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LockLost } from '../../../../src/bullmq/send/job-control.js';
import { oneJob } from './one-job.js';

/** What the first POST meets: accepted, a lost answer (a reconcile walk follows), or a 429. */
const answers = fc.constantFrom('ok', '500', '429');

describe('a worker that lost its lock on a job', () => {
  it('writes nothing more, sends nothing more, and publishes nothing more', async () => {
    await fc.assert(
      fc.asyncProperty(
        answers,
        fc.nat({ max: 6 }),
        fc.constantFrom('lost' as const, 'gone' as const),
        fc.boolean(),
        async (first, at, why, lateMark) => {
          let posts = 0;
          const one = await oneJob({
            answer: (method) => {
              if (method !== 'POST' || posts++ > 0 || first === 'ok') return undefined;
              return first === '429'
                ? new Response('{"message":"Too Many Attempts."}', { status: 429, headers: { 'retry-after': '1' } })
                : new Response('{"message":"Server Error"}', { status: 500 });
            },
            owned: (n) => (n === at ? why : 'written'),
            // A mark confirmed late: the POST's second pass proves the lock again first (a write).
            lateMark,
          });
          // Starts as BullMQ would give them, until the lock is found lost or the job ends.
          let ended: { error?: unknown; result?: unknown } = {};
          for (let start = 0; start < 6; start++) {
            ended = await one.start();
            if (!('error' in ended) || ended.error instanceof LockLost) break;
            if (!(ended.error instanceof Error)) break;
          }
          // Every POST comes right after a write that proved the lock (the mark, or its proof again).
          one.events.forEach((event, i) => {
            if (event === 'POST /messages')
              expect(one.events[i - 1], one.events.join(' | ')).toBe('write in-flight written');
          });
          const refused = one.events.findIndex((e) => / (lost|gone)$/.test(e));
          if (refused === -1) return; // the job ended before its `at`-th write
          expect(ended.error).toBeInstanceOf(LockLost);
          // No request, no write and no update after it.
          expect(one.events.slice(refused + 1), 'after the refused write').toEqual([]);
          expect(one.errors.filter((e) => /lost its lock/.test(e))).toHaveLength(1);
          // The write refused was the `in-flight` mark: the send was never made.
          if (
            one.events[refused]?.startsWith('write in-flight') &&
            !one.events.slice(0, refused).includes('POST /messages')
          )
            expect(one.sandbox.messages('acme')).toHaveLength(0);
        },
      ),
      { numRuns: 100 },
    );
  });
});
